# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# gen-trace.awk: write the trace layer's wrappers (C) from the public
# headers, so the wrappers cannot fall out of step with them. POSIX awk
# (Debian's mawk) only. Usage: awk -f gen-trace.awk types.h sx.h > out.c
# It reads: handle typedefs ("typedef struct x *name;"), function-pointer
# typedefs, enum typedefs ("typedef uint32_t name;" followed by "enum {"),
# and every "SX_API ... ;" declaration, which may span lines.

function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }

# ---- declarations ----
/^typedef struct [A-Za-z_0-9]+ \*[A-Za-z_0-9]+;/ {
    n = $4; sub(/^\*/, "", n); sub(/;.*/, "", n); handle[n] = 1
}
/^typedef [a-z_0-9]+ \(\*[A-Za-z_0-9]+\)\(/ {
    n = $0; sub(/^typedef [a-z_0-9]+ \(\*/, "", n); sub(/\).*/, "", n); fnptr[n] = 1
}
/^typedef u?int(8|16|32|64)_t [A-Za-z_0-9]+;/ {
    pending = $3; sub(/;.*/, "", pending); pending_line = NR; next
}
/^enum[ \t]*\{/ {
    if (pending != "" && pending_line == NR - 1) { in_enum = pending; enums[++nenums] = pending; nconst[pending] = 0 }
    pending = ""; next
}
# A constant kept out of its enum (one that does not fit an int) is a macro
# cast to the enum's typedef: "#define SX_X ((sx_type)value)".
/^#define SX_[A-Z0-9_]+ \(\(sx_[a-z_]+\)/ {
    t = $3; sub(/^\(\(/, "", t); sub(/\).*/, "", t)
    if (t in nconst) econst[t, ++nconst[t]] = $2
}
in_enum != "" && /^\};/ { in_enum = ""; next }
in_enum != "" {
    line = $0; sub(/\/\*.*/, "", line)
    while (match(line, /SX[A-Z0-9_]*[ \t]*=/)) {
        c = substr(line, RSTART, RLENGTH); sub(/[ \t]*=$/, "", c)
        if (c !~ /_$/) econst[in_enum, ++nconst[in_enum]] = c
        line = substr(line, RSTART + RLENGTH)
    }
    next
}
/^SX_API / && !in_decl { in_decl = 1; decl = "" }
in_decl {
    line = $0; sub(/\/\*.*\*\//, "", line)
    decl = decl " " line
    if (line ~ /;/) { in_decl = 0; decls[++ndecls] = decl }
}

# ---- generation ----
function is_int(t) { return t ~ /^(u?int(8|16|32|64)_t|size_t|int|unsigned|uint32_t)$/ }
# the format of a scalar value of type t into the line
function put_scalar(t, expr, name,    s) {
    if (t == "sx_result") return "sxt_put(&L, \"%s\", sxt_result_name(" expr "));"
    if (t in enumtype) {
        if (name == "flags") return "sxt_put(&L, \"0x%x\", (unsigned)" expr ");"
        return "sxt_put(&L, \"%s\", sxt_ename_" t "((int64_t)" expr ", sxt_tmp, sizeof sxt_tmp));"
    }
    if (t in handle) return "sxt_ptr(&L, (const void *)" expr ");"
    if (t in fnptr) return "sxt_fnptr(&L, (void (*)(void))" expr ");"
    if (name == "flags") return "sxt_put(&L, \"0x%x\", (unsigned)" expr ");"
    if (t == "size_t") return "sxt_put(&L, \"%zu\", (size_t)" expr ");"
    if (t == "uint64_t") return "sxt_put(&L, \"%llu\", (unsigned long long)" expr ");"
    if (t == "int64_t") return "sxt_put(&L, \"%lld\", (long long)" expr ");"
    if (t ~ /^(uint32_t|uint16_t|uint8_t|unsigned)$/) return "sxt_put(&L, \"%u\", (unsigned)" expr ");"
    if (t ~ /^(int32_t|int16_t|int8_t|int)$/) return "sxt_put(&L, \"%d\", (int)" expr ");"
    # A type this generator cannot print: fail the build rather than trace
    # it wrongly; teach put_scalar the new type.
    printf "gen-trace.awk: no printer for a parameter of type %s (%s)\n", t, name > "/dev/stderr"
    gen_error = 1
    return "sxt_put(&L, \"?\");"
}

function gen(d,    ret, fname, plist, np, i, p, t, nm, cnt, numout, body, call, pre, post, isconst, depth, base, sep, retstr) {
    sub(/^[ \t]*SX_API[ \t]+/, "", d); d = trim(d)
    gsub(/[ \t]+/, " ", d)
    i = index(d, "(")
    head = trim(substr(d, 1, i - 1))
    rest = substr(d, i + 1); sub(/\)[ \t]*;.*$/, "", rest)
    # head: "<return type> [*]name"
    fname = head; sub(/^.*[ *]/, "", fname)
    ret = trim(substr(head, 1, length(head) - length(fname)))
    retstr = (ret ~ /char \*$/)
    np = 0; cnt = ""; numout = ""
    if (trim(rest) != "void") {
        n = split(rest, parts, ",")
        for (i = 1; i <= n; i++) {
            p = trim(parts[i])
            nm = p; sub(/^.*[ *]/, "", nm)
            t = trim(substr(p, 1, length(p) - length(nm)))
            np++; pname[np] = nm; ptype[np] = t
            isconst = (t ~ /^const /); base = t; sub(/^const /, "", base)
            depth = gsub(/\*/, "", base); base = trim(base)
            pconst[np] = isconst; pdepth[np] = depth; pbase[np] = base
            pcount[np] = cnt
            if (depth == 0 && (nm == "count" || nm ~ /^num_/ || nm == "work_dim")) cnt = nm
            if (depth == 1 && !isconst && base == "uint32_t" && nm ~ /^num_/) numout = nm
        }
    }
    proto = ""; args = ""
    for (i = 1; i <= np; i++) {
        proto = proto (i > 1 ? ", " : "") ptype[i] (ptype[i] ~ /\*$/ ? "" : " ") pname[i]
        args = args (i > 1 ? ", " : "") pname[i]
    }
    if (np == 0) proto = "void"
    printf "/* %s */\n", fname
    printf "static %s (*real_%s)(%s);\n", ret, fname, proto
    printf "static %s trace_%s(%s) __attribute__((noinline, cold));\n", ret, fname, proto
    printf "SXT_EXPORT %s %s(%s)\n{\n", ret, fname, proto
    printf "    if (__builtin_expect(__atomic_load_n(&sxt_fast, __ATOMIC_ACQUIRE), 1))\n"
    printf "        return real_%s(%s);\n", fname, args
    printf "    return trace_%s(%s);\n}\n", fname, args
    printf "static %s trace_%s(%s)\n{\n", ret, fname, proto
    printf "    if (!sxt_enter())\n        return real_%s(%s);\n", fname, args
    printf "    sxt_line L;\n    char sxt_tmp[32];\n    (void)sxt_tmp;\n"
    printf "    sxt_begin(&L, \"%s\");\n", fname
    post = ""
    for (i = 1; i <= np; i++) {
        nm = pname[i]; base = pbase[i]
        printf "    sxt_put(&L, \"%s%s=\");\n", (i > 1 ? ", " : ""), nm
        if (pdepth[i] == 0) {
            printf "    %s\n", put_scalar(base, nm, nm)
        } else if (pdepth[i] == 1 && pconst[i] && base == "char") {
            printf "    sxt_str(&L, %s);\n", nm
        } else if (pdepth[i] == 1 && pconst[i] && (base in handle) && pcount[i] != "") {
            printf "    sxt_ptrs(&L, (const void *const *)%s, %s);\n", nm, pcount[i]
        } else if (pdepth[i] == 1 && pconst[i] && base == "size_t" && pcount[i] != "") {
            printf "    sxt_sizes(&L, %s, %s);\n", nm, pcount[i]
        } else if (pdepth[i] == 1 && pconst[i] && base == "sx_arg" && pcount[i] != "") {
            printf "    sxt_args(&L, %s, %s);\n", nm, pcount[i]
        } else if (pdepth[i] == 1 && pconst[i] && base == "sx_device_binaries") {
            printf "    sxt_binaries(&L, %s);\n", nm
        } else if (pdepth[i] == 1 && pconst[i] && base == "sx_launch_properties") {
            printf "    sxt_launch_props(&L, %s);\n", nm
        } else {
            printf "    sxt_ptr(&L, (const void *)%s);\n", nm
            # outputs: written by a successful call
            if (!pconst[i] && pdepth[i] == 1 && (base in handle) && pcount[i] == "count") {
                post = post "        if (" nm ") { sxt_put(&L, \" " nm "=\"); sxt_ptrs(&L, (const void *const *)" nm ", " \
                    (numout != "" ? "(" numout " && *" numout " < " pcount[i] ") ? *" numout " : " pcount[i] : pcount[i]) "); }\n"
            } else if (!pconst[i] && pdepth[i] == 1 && base != "void" && base != "char") {
                post = post "        if (" nm ") { sxt_put(&L, \" *" nm "=\"); " put_scalar(base, "*" nm, nm) " }\n"
            } else if (!pconst[i] && pdepth[i] == 2 && base == "void") {
                post = post "        if (" nm ") { sxt_put(&L, \" *" nm "=\"); sxt_ptr(&L, *" nm "); }\n"
            }
        }
    }
    printf "    sxt_put(&L, \")\");\n"
    printf "    uint64_t sxt_t0 = sxt_now();\n"
    printf "    %s sxt_r = real_%s(%s);\n", ret, fname, args
    printf "    uint64_t sxt_t1 = sxt_now();\n"
    if (retstr) {
        printf "    sxt_put(&L, \" -> \");\n    sxt_str(&L, sxt_r);\n"
        printf "    sxt_end(&L, sxt_t1 - sxt_t0, 0);\n"
    } else {
        printf "    sxt_put(&L, \" -> %%s\", sxt_result_name(sxt_r));\n"
        if (post != "") printf "    if (sxt_r == SX_SUCCESS) {\n%s    }\n", post
        printf "    sxt_end(&L, sxt_t1 - sxt_t0, sxt_r != SX_SUCCESS);\n"
    }
    printf "    return sxt_r;\n}\n\n"
    names[++nnames] = fname; nstr[nnames] = retstr
}

END {
    print "/* Generated by trace/gen-trace.awk from include/sycl-ext/types.h and sx.h."
    print " * Do not edit: change the headers or the generator. */"
    print "#include \"trace/trace.h\""
    print ""
    for (e = 1; e <= nenums; e++) {
        t = enums[e]; enumtype[t] = 1
        if (t == "sx_result") continue
        printf "static __attribute__((unused)) const char *sxt_ename_%s(int64_t v, char *buf, size_t size)\n{\n", t
        for (k = 1; k <= nconst[t]; k++)
            printf "    if (v == (int64_t)%s) return \"%s\";\n", econst[t, k], econst[t, k]
        printf "    snprintf(buf, size, \"%%lld\", (long long)v);\n    return buf;\n}\n"
    }
    print ""
    for (k = 1; k <= ndecls; k++) gen(decls[k])
    print "const sxt_entry sxt_entries[] = {"
    for (k = 1; k <= nnames; k++) printf "    {\"%s\", (void **)&real_%s, %d},\n", names[k], names[k], nstr[k]
    print "};"
    printf "const size_t sxt_num_entries = %d;\n", nnames
    if (gen_error)
        exit 1
}
