# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# sycl-ext-device-code.cmake: sycl_ext_add_device_code(), device sources to
# registered images for a target in one call:
#
#   sycl_ext_add_device_code(<target> SOURCES k.cl [more.cl ...]
#       [VARIANTS spirv;native;spir-bc;ptx]   default: spirv;native
#       [NAME <c-identifier>]                 default: <target>_device (C prefix, file names)
#       [CLANG_FLAGS ...]                     extra clang flags for every compile (-D, -I)
#       [CUDA_SOURCES k.cu ...]               ptx: one per SOURCES entry (default: k.cu beside k.cl)
#       [CUDA_ARCH sm_75]                     ptx: nvcc -arch (default sm_75)
#       [VF_SETS _ZTSv ...]                   native: virtual-function sets the sources define
#                                             (proptool outlines each into an image; its host
#                                             variant is the same host object)
#       [PROPTOOL_FLAGS ...]                  extra proptool options (--werror, --no-vf-split, ...)
#       [IMAGE_FILE <var>])                   sets <var> to the .sximg path as well
#
# Per source:  k.cl -clang-14-> k.bc -llvm-spirv-14-> k.spv   (always: proptool reads
#              the properties from SPIR-V)
#              native:  k.cl -clang-14 (host)-> k-host.so     (the native adapter)
#              ptx:     k.cu -nvcc -ptx-> k.ptx               (the CUDA adapter)
# then proptool bundles them (spir-bc: proptool --spir-bc adds the SPIR bitcode
# variant for OpenCL drivers without IL) into <NAME>.sximg and <NAME>-images.c,
# which is added to <target>: its constructor registers the images. <target>
# is linked with sycl-ext::sycl-ext.
#
# Each step is its own custom command with clang's depfiles, so editing one
# k.cl (or a header it includes) re-runs only its own steps, proptool and the
# link of <target>.
#
# Needs clang-14 and llvm-spirv-14 (Debian: apt-get install clang-14
# llvm-spirv-14), nvcc for ptx; a missing one stops configure with a message
# naming it. SYCL_EXT_CLANG, SYCL_EXT_LLVM_SPIRV, SYCL_EXT_NVCC (cache
# variables) point at other copies.
include_guard(GLOBAL)

set(_SYCL_EXT_SPIR_FLAGS -target spir64 -cl-std=CL2.0 -O1 -c -emit-llvm -Xclang -finclude-default-header)
set(_SYCL_EXT_HOST_FLAGS -x cl -cl-std=CL2.0 -Xclang -finclude-default-header -Dkernel= -D__kernel=
    -target x86_64-linux-gnu -O2 -fPIC -shared -nostdlib)

# A tool the chosen variants need, or a configure error saying which and why.
function(_sycl_ext_need_tool var names what why)
  if(NOT ${var})
    find_program(${var} NAMES ${names} HINTS /usr/local/cuda/bin "$ENV{CUDA_HOME}/bin" DOC "${what} for sycl_ext_add_device_code")
  endif()
  if(NOT ${var})
    string(REPLACE ";" " or " _n "${names}")
    message(FATAL_ERROR "sycl_ext_add_device_code: ${_n} not found; it is needed ${why}. "
                        "Install it (${what}) or set ${var} to its path.")
  endif()
endfunction()

# The native variant of one source: today the OpenCL C built for the host
# (README, adapters/native/README.md). Kept to this one step so that when
# proptool makes native images from SPIR-V itself, it becomes a proptool
# option instead. Sets <args_var> to the proptool arguments that add it.
function(_sycl_ext_native_variant src dir stem args_var)
  set(_so "${dir}/${stem}-host.so")
  add_custom_command(OUTPUT "${_so}"
    COMMAND "${SYCL_EXT_CLANG}" ${_SYCL_EXT_HOST_FLAGS} ${_sx_clang_flags} -MD -MF "${_so}.d" -MT "${_so}" "${src}" -o "${_so}"
    DEPENDS "${src}" DEPFILE "${_so}.d"
    COMMENT "sycl-ext: ${stem}: host (native) object" VERBATIM)
  set(_a --host "${_so}")
  foreach(_set IN LISTS _sx_VF_SETS)
    list(APPEND _a --host-vf "${_set}=${_so}")
  endforeach()
  set(${args_var} ${_a} PARENT_SCOPE)
endfunction()

function(sycl_ext_add_device_code target)
  cmake_parse_arguments(PARSE_ARGV 1 _sx "" "NAME;CUDA_ARCH;IMAGE_FILE"
                        "SOURCES;VARIANTS;CLANG_FLAGS;CUDA_SOURCES;PROPTOOL_FLAGS;VF_SETS")
  if(_sx_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "sycl_ext_add_device_code(${target}): unknown arguments: ${_sx_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "sycl_ext_add_device_code: '${target}' is not a target (add_executable/add_library first)")
  endif()
  if(NOT _sx_SOURCES)
    message(FATAL_ERROR "sycl_ext_add_device_code(${target}): no SOURCES")
  endif()
  if(NOT _sx_VARIANTS)
    set(_sx_VARIANTS spirv native)
  endif()
  foreach(_v IN LISTS _sx_VARIANTS)
    if(NOT _v MATCHES "^(spirv|native|spir-bc|ptx)$")
      message(FATAL_ERROR "sycl_ext_add_device_code(${target}): unknown variant '${_v}' (spirv, native, spir-bc, ptx)")
    endif()
  endforeach()
  if(NOT _sx_NAME)
    string(MAKE_C_IDENTIFIER "${target}_device" _sx_NAME)
  endif()
  if(NOT _sx_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "sycl_ext_add_device_code(${target}): NAME '${_sx_NAME}' is not a C identifier")
  endif()
  if(NOT _sx_CUDA_ARCH)
    set(_sx_CUDA_ARCH sm_75)
  endif()
  if(NOT SYCL_EXT_PROPTOOL OR NOT EXISTS "${SYCL_EXT_PROPTOOL}")
    message(FATAL_ERROR "sycl_ext_add_device_code(${target}): proptool not found at '${SYCL_EXT_PROPTOOL}' "
                        "(install libsycl-ext's tools: the sycl-ext-tools package, or make install)")
  endif()

  _sycl_ext_need_tool(SYCL_EXT_CLANG "clang-14" "clang-14" "to compile OpenCL C device sources")
  _sycl_ext_need_tool(SYCL_EXT_LLVM_SPIRV "llvm-spirv-14" "llvm-spirv-14" "to turn LLVM bitcode into SPIR-V")
  if("ptx" IN_LIST _sx_VARIANTS)
    _sycl_ext_need_tool(SYCL_EXT_NVCC "nvcc" "the CUDA toolkit" "for the ptx variant")
  endif()

  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/${_sx_NAME}.sx")
  file(MAKE_DIRECTORY "${_dir}")
  set(_sx_clang_flags ${_sx_CLANG_FLAGS})
  set(_args)
  set(_deps)
  set(_stems)
  list(LENGTH _sx_SOURCES _n)
  list(LENGTH _sx_CUDA_SOURCES _ncu)
  if(_ncu AND NOT _ncu EQUAL _n)
    message(FATAL_ERROR "sycl_ext_add_device_code(${target}): ${_ncu} CUDA_SOURCES for ${_n} SOURCES (one each, same order)")
  endif()
  math(EXPR _last "${_n} - 1")
  foreach(_i RANGE ${_last})
    list(GET _sx_SOURCES ${_i} _src)
    get_filename_component(_src "${_src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    get_filename_component(_stem "${_src}" NAME_WE)
    if(_stem IN_LIST _stems)
      message(FATAL_ERROR "sycl_ext_add_device_code(${target}): two SOURCES named '${_stem}'; rename one")
    endif()
    list(APPEND _stems "${_stem}")
    set(_bc "${_dir}/${_stem}.bc")
    set(_spv "${_dir}/${_stem}.spv")
    add_custom_command(OUTPUT "${_bc}"
      COMMAND "${SYCL_EXT_CLANG}" ${_SYCL_EXT_SPIR_FLAGS} ${_sx_clang_flags} -MD -MF "${_bc}.d" -MT "${_bc}" "${_src}" -o "${_bc}"
      DEPENDS "${_src}" DEPFILE "${_bc}.d"
      COMMENT "sycl-ext: ${_stem}: SPIR bitcode" VERBATIM)
    add_custom_command(OUTPUT "${_spv}"
      COMMAND "${SYCL_EXT_LLVM_SPIRV}" "${_bc}" -o "${_spv}"
      DEPENDS "${_bc}"
      COMMENT "sycl-ext: ${_stem}: SPIR-V" VERBATIM)
    list(APPEND _args "${_spv}")
    list(APPEND _deps "${_spv}")
    if("native" IN_LIST _sx_VARIANTS)
      _sycl_ext_native_variant("${_src}" "${_dir}" "${_stem}" _nat)
      list(APPEND _args ${_nat})
      list(GET _nat 1 _natfile)
      list(APPEND _deps "${_natfile}")
    endif()
    if("ptx" IN_LIST _sx_VARIANTS)
      if(_ncu)
        list(GET _sx_CUDA_SOURCES ${_i} _cu)
        get_filename_component(_cu "${_cu}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      else()
        get_filename_component(_cud "${_src}" DIRECTORY)
        set(_cu "${_cud}/${_stem}.cu")
      endif()
      if(NOT EXISTS "${_cu}")
        message(FATAL_ERROR "sycl_ext_add_device_code(${target}): the ptx variant of ${_src} needs its CUDA source "
                            "'${_cu}' (or give CUDA_SOURCES)")
      endif()
      set(_ptx "${_dir}/${_stem}.ptx")
      add_custom_command(OUTPUT "${_ptx}"
        COMMAND "${SYCL_EXT_NVCC}" -ptx -rdc=true "-arch=${_sx_CUDA_ARCH}" "${_cu}" -o "${_ptx}"
        DEPENDS "${_cu}"
        COMMENT "sycl-ext: ${_stem}: PTX" VERBATIM)
      list(APPEND _args --ptx "${_ptx}")
      list(APPEND _deps "${_ptx}")
    endif()
  endforeach()

  set(_pre)
  if("spir-bc" IN_LIST _sx_VARIANTS)
    set(_pre --spir-bc --llvm-spirv "${SYCL_EXT_LLVM_SPIRV}")
  endif()
  set(_img "${_dir}/${_sx_NAME}.sximg")
  set(_c "${_dir}/${_sx_NAME}-images.c")
  add_custom_command(OUTPUT "${_img}" "${_c}"
    COMMAND "${SYCL_EXT_PROPTOOL}" ${_sx_PROPTOOL_FLAGS} ${_pre} -o "${_img}" --emit-c "${_c}" --c-prefix "${_sx_NAME}" ${_args}
    DEPENDS ${_deps} "${SYCL_EXT_PROPTOOL}"
    COMMENT "sycl-ext: ${_sx_NAME}: proptool (images and registration)" VERBATIM)
  target_sources(${target} PRIVATE "${_c}")
  target_link_libraries(${target} PRIVATE sycl-ext::sycl-ext)
  if(_sx_IMAGE_FILE)
    set(${_sx_IMAGE_FILE} "${_img}" PARENT_SCOPE)
  endif()
endfunction()
