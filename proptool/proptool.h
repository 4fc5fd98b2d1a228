/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* proptool.h: what proptool's files share (the CLI is not part of the library). */
#ifndef SXP_PROPTOOL_H
#define SXP_PROPTOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <sycl-ext/binaries.h>

#define SXP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define SXP_NONE UINT32_MAX

/* ---------------------------------------------------------------- util.c */

/* Diagnostics go to stderr as "proptool: error: FILE: word N: text".
 * `word` is a word offset into the SPIR-V module, or SXP_NONE. */
void sxp_error(const char *file, uint32_t word, const char *fmt, ...) SXP_PRINTF(3, 4);
void sxp_warn(const char *file, uint32_t word, const char *fmt, ...) SXP_PRINTF(3, 4);
extern unsigned sxp_num_warnings;
extern bool sxp_quiet_warnings;
extern bool sxp_silent;  /* no diagnostics at all (fuzzing) */

/* Allocation that cannot fail quietly: on failure prints and exits (a CLI). */
void *sxp_xmalloc(size_t n);
void *sxp_xcalloc(size_t n, size_t size);
void *sxp_xrealloc(void *p, size_t n);
char *sxp_xstrdup(const char *s);
char *sxp_xstrndup(const char *s, size_t n);
char *sxp_xasprintf(const char *fmt, ...) SXP_PRINTF(1, 2);
/* Grow *p (elements of `size`) so index `n` fits; *cap tracks capacity. */
void sxp_grow(void *pp, size_t *cap, size_t n, size_t size);

/* A growable byte buffer. */
typedef struct sxp_buf {
    uint8_t *data;
    size_t len, cap;
} sxp_buf;
void sxp_buf_put(sxp_buf *b, const void *p, size_t n);
void sxp_buf_u8(sxp_buf *b, uint8_t v);
void sxp_buf_u16(sxp_buf *b, uint16_t v);
void sxp_buf_u32(sxp_buf *b, uint32_t v);
void sxp_buf_u64(sxp_buf *b, uint64_t v);
void sxp_buf_align(sxp_buf *b, size_t a);
void sxp_buf_free(sxp_buf *b);

/* Whole-file read; NULL (diagnosed) on failure. */
uint8_t *sxp_read_file(const char *path, size_t *size);
/* Write through a temporary file in the same directory and rename, so a
 * failure never leaves a partial output behind. */
bool sxp_write_file_atomic(const char *path, const void *data, size_t size);

/* --------------------------------------------------------- the image model */

typedef struct sxp_prop {
    char *name;
    uint32_t type;     /* SX_PROPERTY_TYPE_* */
    uint32_t u32;      /* UINT32 */
    uint8_t *bytes;    /* BYTE_ARRAY: whole value incl. the 64-bit prefix; STRING: chars */
    size_t size;       /* bytes of `bytes` (STRING: length without NUL) */
} sxp_prop;

typedef struct sxp_propset {
    char *name;
    sxp_prop *props;
    size_t nprops, cap;
} sxp_propset;

typedef struct sxp_image {
    char *origin;          /* file it came from (diagnostics, dump comments) */
    char *target;
    uint8_t format;        /* SX_BINARY_FORMAT_* */
    char *compile_options; /* NULL: none */
    char *link_options;
    uint8_t *data;
    size_t size;
    char **entries;
    size_t nentries, entries_cap;
    sxp_propset *sets;
    size_t nsets, sets_cap;
    /* Room for the virtual-functions split (issue 6): which set an
     * outlined image holds and whether it is the dummy copy. */
    char *vf_set;
    bool vf_dummy;
} sxp_image;

sxp_image *sxp_image_new(const char *origin, const char *target, uint8_t format);
void sxp_image_free(sxp_image *img);
void sxp_image_add_entry(sxp_image *img, const char *name);
sxp_propset *sxp_image_set(sxp_image *img, const char *name);  /* find or add */
const sxp_propset *sxp_image_find_set(const sxp_image *img, const char *name);
const sxp_prop *sxp_set_find(const sxp_propset *s, const char *name);
void sxp_set_u32(sxp_propset *s, const char *name, uint32_t v);
/* BYTE_ARRAY from a payload of `nbits` bits (bytes = ceil(nbits / 8)). */
void sxp_set_bits(sxp_propset *s, const char *name, const void *payload, uint64_t nbits);
void sxp_set_bytes(sxp_propset *s, const char *name, const void *payload, size_t n);
/* BYTE_ARRAY holding a string; with_nul adds the trailing NUL (DPC++'s VF sets). */
void sxp_set_bytes_str(sxp_propset *s, const char *name, const char *str, bool with_nul);
void sxp_set_string(sxp_propset *s, const char *name, const char *str);
/* Copy entries and every property set of `from` into `to`. */
void sxp_image_copy_props(sxp_image *to, const sxp_image *from);
/* Replace img's DPC++ property sets by those of `prop` (a parsed .prop);
 * its "SX/" sets stay. */
void sxp_image_take_prop(sxp_image *img, const sxp_image *prop);
/* Sort property sets by name and properties by name: stable output. */
void sxp_image_sort(sxp_image *img);

/* Kernel signatures ("SX/kernel signatures"). */
typedef struct sxp_member {
    uint32_t scalar, offset;
} sxp_member;
typedef struct sxp_param {
    uint32_t kind, scalar, size, align, address_space, source_index;
    uint32_t nmembers;
    sxp_member *members;
} sxp_param;
typedef struct sxp_kernel {
    char *name;
    uint32_t kind, dims, num_source_params;
    uint32_t nparams;
    sxp_param *params;
    uint32_t reqd_wg[3];   /* OpenCL order (x first), padded with 1 */
    bool has_reqd_wg;
    uint32_t reqd_wg_dims; /* values the source gave: 3 from LocalSize, 1..3 from sycl-work-group-size */
    uint32_t reqd_sg;      /* OpExecutionMode SubgroupSize, 0 if none */
    uint32_t scratch_param; /* the work-group scratch argument, when has_scratch */
    bool has_scratch;
    bool generated;   /* added by proptool (accessor kernels): not a user kernel */
} sxp_kernel;
void sxp_kernel_encode(const sxp_kernel *k, sxp_buf *payload);
void sxp_kernel_free(sxp_kernel *k);
const char *sxp_scalar_name(uint32_t scalar);
uint32_t sxp_scalar_from_name(const char *name);
uint32_t sxp_scalar_size(uint32_t scalar);

/* symbols.c: DPC++'s name rules. Is `name` a free-function kernel entry
 * (`__sycl_kernel_` prefix, also inside C++ mangling)? Is it an internal
 * (`__` prefix, also of the demangled name) that is never imported or
 * exported? */
bool sxp_free_function_name(const char *name);
bool sxp_internal_symbol(const char *name);

/* Aspect names <-> numbers (DPC++'s sycl::aspect, types.h). */
const char *sxp_aspect_name(uint32_t aspect);
bool sxp_aspect_parse(const char *text, uint32_t *aspect);

/* host_access values of "SX/host access". */
const char *sxp_host_access_name(uint32_t v);
bool sxp_host_access_parse(const char *text, uint32_t *v);

/* ---------------------------------------------------------------- SPIR-V */

typedef struct sxp_inst {
    uint32_t off;   /* word offset of the first word */
    uint16_t op;
    uint16_t wc;
} sxp_inst;

typedef struct sxp_decor {
    uint32_t target;
    uint32_t decoration;
    uint32_t inst;  /* index of the OpDecorate* instruction */
    uint32_t lit;   /* word offset of the first literal after the decoration */
} sxp_decor;

/* One `key` or `key=value` of a UserSemantic string. */
typedef struct sxp_annot {
    char *key;
    char *value;    /* NULL for a bare key */
    uint32_t word;  /* where it came from */
} sxp_annot;

typedef struct sxp_function {
    uint32_t id, result_type, type, control_word;  /* control_word: word offset of the FunctionControl mask */
    uint32_t first_inst, end_inst;  /* OpFunction .. OpFunctionEnd (inclusive) */
    uint32_t first_label;           /* SXP_NONE: a declaration */
    uint32_t nparams;
    uint32_t *params;               /* parameter ids */
    uint32_t ncallees;
    uint32_t *callees;              /* OpFunctionCall targets, in order */
} sxp_function;

typedef struct sxp_entry {
    uint32_t model, fn, word;
    char *name;
} sxp_entry;

typedef struct sxp_module {
    const char *path;
    uint32_t *words;     /* host byte order */
    uint32_t nwords;
    bool swapped;        /* the file was big-endian */
    uint32_t version, generator, bound, schema;
    uint32_t nids;       /* the input's bound: size of the per-id tables (passes raise `bound`) */
    uint32_t addressing; /* SpvAddressingModel */
    sxp_inst *insts;
    uint32_t ninsts;
    uint32_t *def;       /* per id: defining instruction index, or SXP_NONE */
    uint32_t *caps;
    uint32_t ncaps;
    sxp_decor *decors;
    uint32_t ndecors;
    sxp_entry *entries;
    uint32_t nentries;
    sxp_function *fns;
    uint32_t nfns;
    uint32_t *fn_of_id;  /* per id: index into fns, or SXP_NONE */
    uint32_t *names;     /* per id: word offset of OpName's string, or 0 */
    uint32_t first_fn_inst;  /* index of the first OpFunction (end of the global section) */
    /* UserSemantic annotations per id (parsed, all decorations merged). */
    sxp_annot **annots;
    uint32_t *nannots;
    /* Edits made by passes: dropped instructions and words to insert. */
    uint8_t *drop;       /* per instruction */
    sxp_buf *after;      /* per instruction (NULL until used): words emitted after it */
    sxp_buf global_extra;  /* words appended to the global section */
    sxp_buf fn_extra;      /* functions appended at the end */
} sxp_module;

/* Set while re-reading proptool's own output: an image split from a large
 * module keeps its id bound, which the plausibility check on input (bound
 * against size) would refuse. */
extern bool sxp_any_bound;
/* Parse a module; false (diagnosed) on malformed input. */
bool sxp_module_parse(sxp_module *m, const char *path, const uint8_t *bytes, size_t size);
void sxp_module_free(sxp_module *m);
const char *sxp_module_name(const sxp_module *m, uint32_t id);   /* OpName or NULL */
const char *sxp_module_string(const sxp_module *m, uint32_t word); /* literal at word */
const sxp_inst *sxp_module_def(const sxp_module *m, uint32_t id); /* NULL if undefined */
/* The decorations of `id` of one kind, iterated with *it (start at 0). */
const sxp_decor *sxp_module_decor(const sxp_module *m, uint32_t id, uint32_t decoration, uint32_t *it);
/* LinkageAttributes of `id`: name and type (SpvLinkageType*), false if none. */
bool sxp_module_linkage(const sxp_module *m, uint32_t id, const char **name, uint32_t *type);
const sxp_annot *sxp_module_annot(const sxp_module *m, uint32_t id, const char *key);
uint32_t sxp_module_new_id(sxp_module *m);
/* Words to emit after instruction `i` (kept or dropped). */
sxp_buf *sxp_module_after(sxp_module *m, uint32_t i);
/* Append one instruction (opcode + operand words) to a word buffer. */
void sxp_emit(sxp_buf *b, uint32_t op, const uint32_t *ops, uint32_t n);
/* Serialise (little-endian) with the edits applied. */
void sxp_module_write(const sxp_module *m, sxp_buf *out);
const char *sxp_op_name(uint32_t op);

/* annot.c: split a UserSemantic string into keys (";"-separated). */
bool sxp_annot_parse(const sxp_module *m, uint32_t word, const char *text, sxp_annot **list,
                     uint32_t *n);
/* Is `key` known; where may it appear. */
enum { SXP_ON_FUNCTION = 1, SXP_ON_KERNEL = 2, SXP_ON_VARIABLE = 4 };
int sxp_annot_key_where(const char *key);
/* An unknown or misplaced key: an error (returns false), or with
 * --lax-annotations (sxp_annot_lax) a warning (returns true); each text
 * once per file and word. */
extern bool sxp_annot_lax;
bool sxp_annot_problem(const char *file, uint32_t word, const char *fmt, ...) SXP_PRINTF(3, 4);

/* ------------------------------------------------------------ computation */

typedef struct sxp_global {
    char *uid;        /* unique id */
    char *symbol;     /* linkage name, or OpName, or NULL */
    uint32_t size;       /* sizeof(T) */
    uint32_t var_size;   /* bytes of the variable itself: T, or the pointer slot */
    bool image_scope;
    uint32_t host_access;
    uint32_t var;
    uint32_t word;
} sxp_global;

typedef struct sxp_options {
    bool if_device;        /* run the if_device pass (default on) */
    bool dg_accessors;     /* issue 5: add accessor kernels per device global */
    bool no_vf_split;      /* issue 6: keep virtual functions with the kernels */
    bool aot;              /* issue 6: --aot-aspects given */
    uint32_t *aot_aspects; /* the target's aspects */
    uint32_t naot_aspects;
    /* Issue 14: the DPC++ .prop that came with this module (--table,
     * --prop), or NULL: what SPIR-V cannot say (device-global sizes and
     * scope) is taken from it. */
    const sxp_image *prop;
} sxp_options;

/* What proptool computes from one module. */
typedef struct sxp_analysis {
    sxp_kernel *kernels;
    uint32_t nkernels;
    sxp_global *globals;
    uint32_t nglobals;
    uint32_t *aspects;
    uint32_t naspects;
    char **exported, **imported;
    uint32_t nexported, nimported;
    char **vf_defined_sets;   /* sets of indirectly-callable definitions */
    uint32_t nvf_defined;
    char **vf_called_sets;    /* union of the kernels' calls-indirectly sets */
    uint32_t nvf_called;
    char **vf_created_sets;   /* creates-indirectly (vtables: issue 6) */
    uint32_t nvf_created;
    /* For the virtual-functions split (issue 6): each indirectly-callable
     * function with its set, and every function whose address is taken by
     * an OpConstantFunctionPointerINTEL (vtables), with that constant. */
    struct sxp_vfunc {
        uint32_t fn;
        char *set;
        bool defined;
    } *vfuncs;
    uint32_t nvfuncs;
    struct sxp_fnptr {
        uint32_t constant, fn;
    } *fnptrs;
    uint32_t nfnptrs;
    uint32_t *if_host_fns, *if_device_fns;
    uint32_t nif_host, nif_device;
    char **accessors;         /* per global: accessor kernel entry name, or NULL */
} sxp_analysis;

bool sxp_analyse(sxp_module *m, const sxp_options *opt, sxp_analysis *a);
void sxp_analysis_free(sxp_analysis *a);
/* dglink.c: when device globals of `a` have no linkage (`static`), new
 * module bytes (malloc'd) that export each under its OpName (else its
 * unique id): parse and analyse them instead. False when none needs it. */
bool sxp_dg_export_internal(const sxp_module *m, const sxp_analysis *a, uint8_t **bytes, size_t *size);
/* Module-scope variables as symbols (after the cleanup and vtables passes,
 * which drop some): sxp_data_symbol says whether one is, with its linkage
 * name and type; sxp_analyse_data_symbols adds them to the analysis's
 * exported and imported symbols. */
bool sxp_data_symbol(const sxp_module *m, const sxp_analysis *a, uint32_t var, const char **name, uint32_t *type);
void sxp_analyse_data_symbols(const sxp_module *m, sxp_analysis *a);
/* Fill an image's entries and property sets from an analysis; `generated`
 * includes what proptool added to the SPIR-V (accessor kernels), which
 * variants compiled from the source (host, PTX, cubin) do not have. */
void sxp_analysis_to_image(const sxp_analysis *a, sxp_image *img, bool generated);

/* Add uses-virtual-functions-set (DPC++'s runtime's name) to a kernel
 * image that has calls-/creates-virtual-functions-set. */
void sxp_vf_add_uses(sxp_image *img);

/* The function that carries a kernel's annotations (the entry function or
 * the function an llvm-spirv wrapper calls). */
uint32_t sxp_kernel_body_fn(const sxp_module *m, const sxp_entry *e);

/* vfsplit.c (issue 6): the virtual-functions split. A plan is made after
 * analysis (NULL, and true, when the module has no indirectly-callable
 * function or --no-vf-split); set and dummy images are written before the
 * passes that add kernels (accessors), kernel images after them. */
typedef struct sxp_vf_plan sxp_vf_plan;
bool sxp_vf_plan_make(sxp_module *m, const sxp_analysis *a, const sxp_options *opt, sxp_vf_plan **out);
void sxp_vf_write_sets(sxp_vf_plan *p, sxp_module *m, const sxp_analysis *a, sxp_image ***imgs, size_t *n,
                       size_t *cap);
void sxp_vf_write_kernels(sxp_vf_plan *p, sxp_module *m, const sxp_analysis *a, sxp_image ***imgs, size_t *n,
                          size_t *cap);
void sxp_vf_plan_free(sxp_vf_plan *p);

/* ifdevice.c */
bool sxp_if_device_pass(sxp_module *m, const sxp_analysis *a);
/* cleanup.c: drop llvm-spirv 14's unreferenced Function-storage globals. */
void sxp_cleanup(sxp_module *m);
/* Words [lo, hi) of `in` that may be ids (the literals of the common
 * opcodes left out; OpExtInst's word 4 is its number, not an id). */
void sxp_id_words(const sxp_module *m, const sxp_inst *in, uint32_t *lo, uint32_t *hi);
/* vtables.c: the Function-storage module-scope variables left (clang-14's
 * C++ vtables) move to CrossWorkgroup with the pointer types that reach
 * them; one that cannot is left, with a warning. */
bool sxp_vtables_pass(sxp_module *m);
/* accessors.c (issue 5) */
bool sxp_add_global_accessors(sxp_module *m, sxp_analysis *a);

/* elf.c: is `name` a defined dynamic symbol of the ELF64 object? false if
 * the object cannot be read as one (then *found is false too). */
bool sxp_elf_has_symbol(const uint8_t *d, size_t size, const char *name, bool *found);

/* ------------------------------------------------------------ output */

/* image-write.c: the image file bytes of `n` images. */
void sxp_image_file_write(sxp_image *const *imgs, size_t n, sxp_buf *out);
/* emit-c.c: C source registering the images of `desc`. */
bool sxp_emit_c(const sx_device_binaries *desc, const char *symbol_prefix, sxp_buf *out);
/* dump.c: the listing of a parsed file. */
void sxp_dump(const sx_device_binaries *desc, sxp_buf *out);
/* propfile.c (issue 14): sycl-post-link's .prop and .table files. */
void sxp_b64_encode(const uint8_t *d, size_t n, sxp_buf *out);  /* DPC++'s base64 */
bool sxp_prop_parse(const char *path, const char *text, size_t size, sxp_image *img);
bool sxp_prop_load(const char *path, sxp_image *img);  /* adds the file's sets to img */
void sxp_prop_write(const sx_device_binary *b, sxp_buf *out);
typedef struct sxp_table_row {
    char *code, *prop, *sym;  /* prop, sym: NULL when the table has none */
} sxp_table_row;
bool sxp_table_load(const char *path, sxp_table_row **rows, size_t *nrows);
void sxp_table_free(sxp_table_row *rows, size_t n);

/* manifest.c: images described by a text manifest. */
bool sxp_manifest_load(const char *path, const sxp_image *companion, sxp_image ***imgs, size_t *n);

#endif /* SXP_PROPTOOL_H */
