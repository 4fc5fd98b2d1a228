/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* sx-info: what libsycl-ext sees: adapters and their status, platforms,
 * devices and their aspects (like sycl-ls / clinfo). */
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sx-paths.h" /* SX_ADAPTER_DIR */
#include <sys/wait.h>
#include <unistd.h>

#include <sycl-ext/sx.h>

#include "sx-info-json.h"
#include "sx-info-names.h"

/* Each adapter is named (and flushed) before the library tries it, so an
 * adapter that crashes the process is the last line printed. */
static void log_trying(sx_log_level level, const char *message, void *user)
{
    (void)level;
    (void)user;
    const char *t = strstr(message, "): trying");
    if (strncmp(message, "adapter ", 8) == 0 && t && t[9] == '\0') {
        printf("  trying %.*s)\n", (int)(t - message - 8), message + 8);
        fflush(stdout);
    }
}

/* The adapters sx_init would try, as SX_ADAPTERS or the default search. */
static int candidates(char ***out)
{
    static const char *const names[] = {"sx-adapter-cuda.so", "sx-adapter-level_zero.so", "sx-adapter-opencl.so"};
    char **list = calloc(64, sizeof(*list));
    int n = 0;
    *out = list;
    if (!list)
        return 0;
    const char *forced = getenv("SX_ADAPTERS");
    if (forced && *forced) {
        char *copy = strdup(forced), *save = NULL;
        for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && n < 64; tok = strtok_r(NULL, ",", &save))
            if (*tok)
                list[n++] = strdup(tok);
        free(copy);
        *out = list;
        return n;
    }
    list[n++] = strdup("native");
    const char *search = getenv("SX_ADAPTERS_PATH");
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        char path[PATH_MAX];
        int found = 0;
        for (const char *p = search ? search : ""; !found && *p;) {
            size_t len = strcspn(p, ":");
            if (len && len < sizeof(path) - 64) {
                snprintf(path, sizeof(path), "%.*s/%s", (int)len, p, names[i]);
                found = access(path, F_OK) == 0;
            }
            p += len + (p[len] == ':');
        }
        const char *dir = getenv("SX_ADAPTER_DIR");
        if (!found) {
            snprintf(path, sizeof(path), "%s/%s", dir && *dir ? dir : SX_ADAPTER_DIR, names[i]);
            found = access(path, F_OK) == 0;
        }
        if (found)
            list[n++] = strdup(path);
    }
    *out = list;
    return n;
}

/* --isolate: each adapter alone in a child process; a crash is a status. */
static int isolate(void)
{
    char **list = NULL;
    int n = candidates(&list), crashed = 0;
    printf("Adapters, each tried alone in a child process: %d\n", n);
    for (int i = 0; i < n; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid < 0) {
            perror("sx-info: fork");
            return 1;
        }
        if (pid == 0) {
            setenv("SX_ADAPTERS", list[i], 1);
            sx_result r = sx_init(0);
            if (r != SX_SUCCESS) {
                printf("  [%d] %s: sx_init: %s: %s\n", i, list[i], sx_result_name(r), sx_last_error());
                _exit(2);
            }
            sx_adapter a;
            uint32_t na = 0;
            char name[256] = "", text[1024] = "";
            sx_result st = SX_ERROR_UNINITIALIZED;
            uint32_t np = 0;
            if (sx_adapter_get(1, &a, &na) == SX_SUCCESS && na) {
                sx_adapter_get_info(a, SX_ADAPTER_INFO_NAME, sizeof(name), name, NULL);
                sx_adapter_get_info(a, SX_ADAPTER_INFO_STATUS, sizeof(st), &st, NULL);
                sx_adapter_get_info(a, SX_ADAPTER_INFO_STATUS_TEXT, sizeof(text), text, NULL);
                sx_adapter_get_info(a, SX_ADAPTER_INFO_NUM_PLATFORMS, sizeof(np), &np, NULL);
            }
            printf("  [%d] %-12s %-8s %s\n       %s%s%s\n", i, name, st == SX_SUCCESS ? "ok" : "SKIPPED", list[i],
                   st == SX_SUCCESS ? "" : sx_result_name(st), st == SX_SUCCESS ? "" : ": ", text);
            fflush(stdout);
            sx_fini();
            _exit(0);
        }
        int status = 0;
        while (waitpid(pid, &status, 0) < 0)
            ;
        if (WIFSIGNALED(status)) {
            crashed++;
            printf("  [%d] %-12s CRASHED  %s\n       signal %d (%s) while loading or initialising it\n", i, "?",
                   list[i], WTERMSIG(status), strsignal(WTERMSIG(status)));
        } else if (WEXITSTATUS(status) != 0) {
            printf("  [%d] %s: the child exited with status %d\n", i, list[i], WEXITSTATUS(status));
        }
    }
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
    return crashed ? 3 : 0;
}

/* The options: the one table --help prints and the parser reads
 * (tests/sx-info-options.sh checks the man page against --help). */
static const struct {
    const char *name, *alt, *help;
} options[] = {
    {"--json", NULL, "write the same as one JSON document (schema sycl-ext/sx-info, doc/json.md)"},
    {"--isolate", NULL, "try each adapter alone in a child process and report one that crashes\n"
                        "as CRASHED (exit status 3) instead of dying with it"},
    {"--version", NULL, "print the library's version"},
    {"--help", "-h", "this help"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: sx-info [--json | --isolate | --version | --help]\n"
               "Lists libsycl-ext's adapters (with why one is not usable), platforms and devices.\n"
               "\n");
    for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
        char head[64];
        snprintf(head, sizeof(head), "%s%s%s", options[i].alt ? options[i].alt : "", options[i].alt ? ", " : "",
                 options[i].name);
        fprintf(f, "  %-14s ", head);
        for (const char *h = options[i].help; *h; h++)
            fputs(*h == '\n' ? "\n                  " : (char[]){*h, 0}, f);
        fputc('\n', f);
    }
    fprintf(f, "\n"
               "Environment: SX_ADAPTERS (force a list of adapter files; 'native' is the built-in one),\n"
               "SX_ADAPTERS_PATH (directories searched first), SX_DEVICE_SELECTOR (backend:type,\n"
               "e.g. native:cpu or !opencl:*), SX_TRACE=1 (log every adapter call), SX_LOG=debug.\n"
               "Exit status: 0 on success, 1 when the library fails to start, 2 on bad usage,\n"
               "3 when --isolate saw an adapter crash.\n");
}

int main(int argc, char **argv)
{
    int which = -1;
    if (argc > 2) {
        fprintf(stderr, "sx-info: one option at most, not %d arguments\nTry 'sx-info --help'.\n", argc - 1);
        return 2;
    }
    for (size_t i = 0; argc > 1 && i < sizeof(options) / sizeof(options[0]); i++)
        if (!strcmp(argv[1], options[i].name) || (options[i].alt && !strcmp(argv[1], options[i].alt)))
            which = (int)i;
    if (argc > 1 && which < 0) {
        fprintf(stderr, "sx-info: unknown option '%s'\nTry 'sx-info --help'.\n", argv[1]);
        return 2;
    }
    const char *opt = which >= 0 ? options[which].name : "";
    if (!strcmp(opt, "--isolate"))
        return isolate();
    if (!strcmp(opt, "--help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(opt, "--json"))
        return sx_info_json(stdout);
    if (!strcmp(opt, "--version")) {
        uint32_t a, b, c;
        sx_get_version(&a, &b, &c);
        printf("sx-info (libsycl-ext) %u.%u.%u\n", a, b, c);
        return 0;
    }
    sx_set_log_callback(log_trying, NULL);
    sx_set_log_level(SX_LOG_INFO);
    printf("Loading adapters:\n");
    fflush(stdout);
    sx_result r = sx_init(0);
    uint32_t na = 0;
    /* Adapters load lazily: this is where every one is tried. */
    if (r == SX_SUCCESS)
        sx_adapter_get(0, NULL, &na);
    sx_set_log_callback(NULL, NULL);
    sx_set_log_level(SX_LOG_ERROR);
    if (r != SX_SUCCESS) {
        fprintf(stderr, "sx-info: sx_init: %s: %s\n", sx_result_name(r), sx_last_error());
        return 1;
    }
    sx_adapter *as = calloc(na ? na : 1, sizeof(*as));
    sx_adapter_get(na, as, NULL);
    printf("Adapters: %u\n", na);
    for (uint32_t i = 0; i < na; i++) {
        char name[256] = "", path[4096] = "", text[1024] = "";
        sx_result st;
        uint32_t np = 0;
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_NAME, sizeof(name), name, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_PATH, sizeof(path), path, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_STATUS, sizeof(st), &st, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_STATUS_TEXT, sizeof(text), text, NULL);
        sx_adapter_get_info(as[i], SX_ADAPTER_INFO_NUM_PLATFORMS, sizeof(np), &np, NULL);
        printf("  [%u] %-12s %-8s %s\n       %s%s%s\n", i, name, st == SX_SUCCESS ? "ok" : "SKIPPED", path,
               st == SX_SUCCESS ? "" : sx_result_name(st), st == SX_SUCCESS ? "" : ": ", text);
    }
    free(as);
    uint32_t nd = 0;
    sx_device_get(NULL, SX_DEVICE_TYPE_ALL, 0, NULL, &nd);
    sx_device *ds = calloc(nd ? nd : 1, sizeof(*ds));
    if (nd)
        sx_device_get(NULL, SX_DEVICE_TYPE_ALL, nd, ds, NULL);
    sx_device def = NULL;
    sx_device_get_default(&def);
    printf("Devices: %u%s\n", nd, nd ? "" : " (none selected)");
    for (uint32_t i = 0; i < nd; i++) {
        char name[256] = "", vendor[256] = "", pname[256] = "";
        sx_device_type t = 0;
        sx_backend b = 0;
        size_t wg = 0;
        uint64_t local = 0, global = 0;
        sx_aspect_set aspects = 0;
        sx_platform p = NULL;
        sx_image_kind kinds[8];
        size_t kn = 0;
        sx_device_get_info(ds[i], SX_DEVICE_INFO_NAME, sizeof(name), name, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_VENDOR, sizeof(vendor), vendor, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_TYPE, sizeof(t), &t, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_BACKEND, sizeof(b), &b, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_MAX_WORK_GROUP_SIZE, sizeof(wg), &wg, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_LOCAL_MEM_SIZE, sizeof(local), &local, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_GLOBAL_MEM_SIZE, sizeof(global), &global, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_ASPECTS, sizeof(aspects), &aspects, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_PLATFORM, sizeof(p), &p, NULL);
        sx_device_get_info(ds[i], SX_DEVICE_INFO_IMAGE_KINDS, sizeof(kinds), kinds, &kn);
        if (p)
            sx_platform_get_info(p, SX_PLATFORM_INFO_NAME, sizeof(pname), pname, NULL);
        printf("  [%s:%s] %s%s\n", backend_name(b), type_name(t), name, ds[i] == def ? "  (default)" : "");
        printf("      platform: %s; vendor: %s\n", pname, vendor);
        printf("      max work-group: %zu; local memory: %" PRIu64 " KiB; global memory: %" PRIu64 " MiB\n", wg,
               local / 1024, global / (1024 * 1024));
        printf("      images:");
        for (size_t k = 0; k < kn / sizeof(sx_image_kind) && k < 8; k++)
            printf(" %s", kind_name(kinds[k]));
        printf("\n      aspects:");
        for (unsigned a = 0; a < 64; a++)
            if (aspects & SX_ASPECT_BIT(a)) {
                const char *an = aspect_name(a);
                if (an)
                    printf(" %s", an);
                else
                    printf(" aspect_%u", a);
            }
        printf("\n");
    }
    free(ds);
    sx_fini();
    return 0;
}
