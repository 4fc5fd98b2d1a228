# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# sycl-ext-device-code.cmake: sycl_ext_add_device_code(), device sources to
# registered images for a target in one call:
#
#   sycl_ext_add_device_code(<target> SOURCES k.cl [more.cl|k.clcpp ...]
#       [VARIANTS spirv;native;spir-bc;ptx]   default: spirv;native
#       [NAME <c-identifier>]                 default: <target>_device (C prefix, file names)
#       [ONE_IMAGE]                           link every source into one module (one image)
#                                             instead of one image per source
#       [CLANG_FLAGS ...]                     extra clang flags for every compile (-D, -I)
#       [OPT_LEVEL 1]                         the producer's optimisation level (0 to 3)
#       [CUDA_SOURCES k.cu ...]               ptx: one per SOURCES entry (default: k.cu beside k.cl)
#       [CUDA_ARCH sm_75]                     ptx: nvcc -arch (default sm_75)
#       [PROPTOOL_FLAGS ...]                  extra proptool options (--werror, --no-vf-split, ...)
#       [HOST_BUILD]                          native: the old route, OpenCL C built for the host
#                                             by clang (no if_device pass, no work-group compiler)
#       [VF_SETS _ZTSv ...]                   HOST_BUILD only: virtual-function sets the sources
#                                             define (each set's image gets the same host object)
#       [IMAGE_FILE <var>])                   sets <var> to the .sximg path as well
#
# Per source (.cl: OpenCL C 2.0; .clcpp: C++ for OpenCL), the producer
# recipe of doc/producer.md:
#   k.cl -clang-14 -O<n> -disable-llvm-passes-> k.in.bc -sx-spir-opt -O<n>-> k.bc
#        -llvm-spirv-14 --spirv-ext=+SPV_INTEL_function_pointers-> k.spv
# (ONE_IMAGE: the k.bc are linked by llvm-link-14 first, and every source
# is compiled with -DSX_DEVICE_ONE_IMAGE=1, see sycl-ext/device.h), then proptool
# makes the images exactly as `proptool -o NAME.sximg k.spv` does: the
# if_device pass, the virtual-function split, and for `native` the native
# variant from that SPIR-V (proptool --native: sx-wgc, which an install of
# proptool carries); spir-bc adds the SPIR bitcode variant, ptx the PTX of
# k.cu. Its output NAME-images.c is added to <target>: its constructor
# registers the images. <target> is linked with sycl-ext::sycl-ext.
# Configure prints each step's command line (message STATUS), and the
# build says each step as it runs it.
#
# Each step is its own custom command with clang's depfiles, so editing one
# k.cl (or a header it includes) re-runs only its own steps, proptool and the
# link of <target>.
#
# Needs clang-14 and llvm-spirv-14 (Debian: apt-get install clang-14
# llvm-spirv-14), llvm-link-14 for ONE_IMAGE, nvcc for ptx; a missing one
# stops configure with a message naming it. SYCL_EXT_CLANG,
# SYCL_EXT_LLVM_SPIRV, SYCL_EXT_LLVM_LINK, SYCL_EXT_NVCC and
# SYCL_EXT_SPIR_OPT (cache variables) point at other copies.
include_guard(GLOBAL)

set(_SYCL_EXT_SPIR_FLAGS -target spir64 -c -emit-llvm -Xclang -finclude-default-header)
set(_SYCL_EXT_HOST_FLAGS -Xclang -finclude-default-header -Dkernel= -D__kernel=
    -target x86_64-linux-gnu -O2 -fPIC -shared -nostdlib)

# Function pointers (C++ virtual functions, indirect calls) translate.
set(_SYCL_EXT_SPIRV_FLAGS --spirv-ext=+SPV_INTEL_function_pointers)

# The language of a device source from its extension.
function(_sycl_ext_lang src out_std out_x)
  if(src MATCHES "\\.clcpp$")
    set(${out_std} -cl-std=clc++ PARENT_SCOPE)
    set(${out_x} clcpp PARENT_SCOPE)
  else()
    set(${out_std} -cl-std=CL2.0 PARENT_SCOPE)
    set(${out_x} cl PARENT_SCOPE)
  endif()
endfunction()

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

# HOST_BUILD: the native variant of one source as OpenCL C built for the
# host (README, adapters/native/README.md): no if_device pass, no
# work-group compiler. Sets <args_var> to the proptool arguments that add it.
function(_sycl_ext_native_variant src dir stem args_var)
  set(_so "${dir}/${stem}-host.so")
  _sycl_ext_lang("${src}" _std _x)
  add_custom_command(OUTPUT "${_so}"
    COMMAND "${SYCL_EXT_CLANG}" -x ${_x} ${_std} ${_SYCL_EXT_HOST_FLAGS} ${_sx_clang_flags} -MD -MF "${_so}.d" -MT "${_so}" "${src}" -o "${_so}"
    DEPENDS "${src}" DEPFILE "${_so}.d"
    COMMENT "sycl-ext: ${stem}: host (native) object: ${SYCL_EXT_CLANG} -x ${_x} ${_std} -target x86_64-linux-gnu -shared ${src}" VERBATIM)
  set(_a --host "${_so}")
  foreach(_set IN LISTS _sx_VF_SETS)
    list(APPEND _a --host-vf "${_set}=${_so}")
  endforeach()
  set(${args_var} ${_a} PARENT_SCOPE)
endfunction()

function(sycl_ext_add_device_code target)
  cmake_parse_arguments(PARSE_ARGV 1 _sx "ONE_IMAGE;HOST_BUILD" "NAME;CUDA_ARCH;IMAGE_FILE;OPT_LEVEL"
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
  if("${_sx_OPT_LEVEL}" STREQUAL "")
    set(_sx_OPT_LEVEL 1)
  endif()
  if(NOT _sx_OPT_LEVEL MATCHES "^[0-3]$")
    message(FATAL_ERROR "sycl_ext_add_device_code(${target}): OPT_LEVEL '${_sx_OPT_LEVEL}' is not 0, 1, 2 or 3")
  endif()
  if(_sx_VF_SETS AND NOT _sx_HOST_BUILD)
    message(FATAL_ERROR "sycl_ext_add_device_code(${target}): VF_SETS is for HOST_BUILD only; proptool's own "
                        "native variant makes one image per set from the SPIR-V (drop VF_SETS)")
  endif()
  if(_sx_ONE_IMAGE AND _sx_HOST_BUILD)
    message(FATAL_ERROR "sycl_ext_add_device_code(${target}): ONE_IMAGE needs proptool's native variant; "
                        "drop HOST_BUILD (or call it once per source)")
  endif()
  if(NOT SYCL_EXT_PROPTOOL OR NOT EXISTS "${SYCL_EXT_PROPTOOL}")
    message(FATAL_ERROR "sycl_ext_add_device_code(${target}): proptool not found at '${SYCL_EXT_PROPTOOL}' "
                        "(install libsycl-ext's tools: the sycl-ext-tools package, or make install)")
  endif()

  _sycl_ext_need_tool(SYCL_EXT_CLANG "clang-14" "clang-14" "to compile OpenCL C device sources")
  _sycl_ext_need_tool(SYCL_EXT_LLVM_SPIRV "llvm-spirv-14" "llvm-spirv-14" "to turn LLVM bitcode into SPIR-V")
  if(_sx_ONE_IMAGE)
    _sycl_ext_need_tool(SYCL_EXT_LLVM_LINK "llvm-link-14" "llvm-link-14" "to link the sources of one image (ONE_IMAGE)")
  endif()
  # sx-spir-opt (beside proptool): the producer step that keeps freeze and
  # odd integer widths out of the bitcode (doc/producer.md).
  if(NOT SYCL_EXT_SPIR_OPT)
    get_filename_component(_ptdir "${SYCL_EXT_PROPTOOL}" DIRECTORY)
    if(EXISTS "${_ptdir}/sx-spir-opt")
      set(SYCL_EXT_SPIR_OPT "${_ptdir}/sx-spir-opt" CACHE FILEPATH "sx-spir-opt for sycl_ext_add_device_code")
    endif()
  endif()
  set(_native_from_spirv FALSE)
  if("native" IN_LIST _sx_VARIANTS AND NOT _sx_HOST_BUILD)
    set(_native_from_spirv TRUE)
  endif()
  if("ptx" IN_LIST _sx_VARIANTS)
    _sycl_ext_need_tool(SYCL_EXT_NVCC "nvcc" "the CUDA toolkit" "for the ptx variant")
  endif()

  set(_dir "${CMAKE_CURRENT_BINARY_DIR}/${_sx_NAME}.sx")
  file(MAKE_DIRECTORY "${_dir}")
  # sycl-ext/device.h for the device sources, from the installed headers.
  set(_sx_clang_flags ${_sx_CLANG_FLAGS})
  if(SYCL_EXT_INCLUDE_DIRS)
    list(APPEND _sx_clang_flags "-I${SYCL_EXT_INCLUDE_DIRS}")
  endif()
  # sycl-ext/device.h: a source that defines SX_DEVICE_GLOBALS_AS_USED (a
  # library built apart) declares its device globals when linked into one.
  if(_sx_ONE_IMAGE)
    list(APPEND _sx_clang_flags -DSX_DEVICE_ONE_IMAGE=1)
  endif()
  set(_args)
  set(_deps)
  set(_stems)
  set(_bcs)
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
    _sycl_ext_lang("${_src}" _std _x)
    set(_bc "${_dir}/${_stem}.bc")
    set(_spv "${_dir}/${_stem}.spv")
    if(SYCL_EXT_SPIR_OPT)
      set(_in "${_dir}/${_stem}.in.bc")
      add_custom_command(OUTPUT "${_in}"
        COMMAND "${SYCL_EXT_CLANG}" ${_SYCL_EXT_SPIR_FLAGS} ${_std} -O${_sx_OPT_LEVEL} -Xclang -disable-llvm-passes ${_sx_clang_flags}
                -MD -MF "${_in}.d" -MT "${_in}" "${_src}" -o "${_in}"
        DEPENDS "${_src}" DEPFILE "${_in}.d"
        COMMENT "sycl-ext: ${_stem}: ${SYCL_EXT_CLANG} -target spir64 ${_std} -O${_sx_OPT_LEVEL} -Xclang -disable-llvm-passes -emit-llvm ${_src}" VERBATIM)
      add_custom_command(OUTPUT "${_bc}"
        COMMAND "${SYCL_EXT_SPIR_OPT}" -O${_sx_OPT_LEVEL} "${_in}" -o "${_bc}"
        DEPENDS "${_in}" "${SYCL_EXT_SPIR_OPT}"
        COMMENT "sycl-ext: ${_stem}: ${SYCL_EXT_SPIR_OPT} -O${_sx_OPT_LEVEL} (no freeze, no odd integer widths)" VERBATIM)
      set(_chain "${SYCL_EXT_CLANG} -O${_sx_OPT_LEVEL} -Xclang -disable-llvm-passes | sx-spir-opt -O${_sx_OPT_LEVEL}")
    else()
      add_custom_command(OUTPUT "${_bc}"
        COMMAND "${SYCL_EXT_CLANG}" ${_SYCL_EXT_SPIR_FLAGS} ${_std} -O${_sx_OPT_LEVEL} ${_sx_clang_flags} -MD -MF "${_bc}.d" -MT "${_bc}" "${_src}" -o "${_bc}"
        DEPENDS "${_src}" DEPFILE "${_bc}.d"
        COMMENT "sycl-ext: ${_stem}: ${SYCL_EXT_CLANG} -target spir64 ${_std} -O${_sx_OPT_LEVEL} -emit-llvm ${_src}" VERBATIM)
      set(_chain "${SYCL_EXT_CLANG} -O${_sx_OPT_LEVEL} (no sx-spir-opt beside proptool: x / d with x % d and small switches may not translate)")
    endif()
    list(APPEND _bcs "${_bc}")
    if(NOT _sx_ONE_IMAGE)
      add_custom_command(OUTPUT "${_spv}"
        COMMAND "${SYCL_EXT_LLVM_SPIRV}" ${_SYCL_EXT_SPIRV_FLAGS} "${_bc}" -o "${_spv}"
        DEPENDS "${_bc}"
        COMMENT "sycl-ext: ${_stem}: ${SYCL_EXT_LLVM_SPIRV} ${_stem}.bc -o ${_stem}.spv" VERBATIM)
      list(APPEND _args "${_spv}")
      list(APPEND _deps "${_spv}")
    endif()
    message(STATUS "sycl_ext_add_device_code(${target}): ${_stem}: ${_chain} | ${SYCL_EXT_LLVM_SPIRV}")
    if("native" IN_LIST _sx_VARIANTS AND _sx_HOST_BUILD)
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

  if(_sx_ONE_IMAGE)
    set(_lbc "${_dir}/${_sx_NAME}.bc")
    set(_spv "${_dir}/${_sx_NAME}.spv")
    add_custom_command(OUTPUT "${_lbc}"
      COMMAND "${SYCL_EXT_LLVM_LINK}" ${_bcs} -o "${_lbc}"
      DEPENDS ${_bcs}
      COMMENT "sycl-ext: ${_sx_NAME}: ${SYCL_EXT_LLVM_LINK} (one image of ${_n} sources)" VERBATIM)
    add_custom_command(OUTPUT "${_spv}"
      COMMAND "${SYCL_EXT_LLVM_SPIRV}" ${_SYCL_EXT_SPIRV_FLAGS} "${_lbc}" -o "${_spv}"
      DEPENDS "${_lbc}"
      COMMENT "sycl-ext: ${_sx_NAME}: ${SYCL_EXT_LLVM_SPIRV} ${_sx_NAME}.bc -o ${_sx_NAME}.spv" VERBATIM)
    list(INSERT _args 0 "${_spv}")
    list(APPEND _deps "${_spv}")
    message(STATUS "sycl_ext_add_device_code(${target}): ${_sx_NAME}: ${SYCL_EXT_LLVM_LINK} of ${_n} sources | ${SYCL_EXT_LLVM_SPIRV}")
  endif()

  set(_pre)
  if("spir-bc" IN_LIST _sx_VARIANTS)
    set(_pre --spir-bc --llvm-spirv "${SYCL_EXT_LLVM_SPIRV}")
  endif()
  if(_native_from_spirv)
    # proptool's own native variant from the processed SPIR-V (if_device
    # applied, one image per virtual-function set); an error if it cannot.
    list(APPEND _pre --native)
  else()
    list(APPEND _pre --no-native)
  endif()
  set(_img "${_dir}/${_sx_NAME}.sximg")
  set(_c "${_dir}/${_sx_NAME}-images.c")
  string(REPLACE ";" " " _shown "${_sx_PROPTOOL_FLAGS};${_pre}")
  message(STATUS "sycl_ext_add_device_code(${target}): ${_sx_NAME}: proptool ${_shown} -o ${_sx_NAME}.sximg --emit-c ${_sx_NAME}-images.c ...")
  add_custom_command(OUTPUT "${_img}" "${_c}"
    COMMAND "${SYCL_EXT_PROPTOOL}" ${_sx_PROPTOOL_FLAGS} ${_pre} -o "${_img}" --emit-c "${_c}" --c-prefix "${_sx_NAME}" ${_args}
    DEPENDS ${_deps} "${SYCL_EXT_PROPTOOL}"
    COMMENT "sycl-ext: ${_sx_NAME}: ${SYCL_EXT_PROPTOOL} ${_shown} -o ${_sx_NAME}.sximg (images and registration)" VERBATIM)
  target_sources(${target} PRIVATE "${_c}")
  target_link_libraries(${target} PRIVATE sycl-ext::sycl-ext)
  if(_sx_IMAGE_FILE)
    set(${_sx_IMAGE_FILE} "${_img}" PARENT_SCOPE)
  endif()
endfunction()
