/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* tools.c: running the external tools behind the variants proptool makes
 * from SPIR-V (native.c: llvm-spirv, sx-wgc, clang; ptx.c: llvm-spirv,
 * sx-ptx). */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "proptool.h"
#include "native.h"

/* `name` as a command: a path, or a file found in $PATH. */
bool sxp_runnable(const char *name)
{
    if (strchr(name, '/'))
        return access(name, X_OK) == 0;
    const char *p = getenv("PATH");
    if (!p)
        p = "/usr/bin:/bin";
    while (*p) {
        const char *c = strchr(p, ':');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        char *cand = sxp_xasprintf("%.*s/%s", (int)len, p, name);
        bool ok = access(cand, X_OK) == 0;
        free(cand);
        if (ok)
            return true;
        p = c ? c + 1 : p + len;
    }
    return false;
}

/* Runs a tool with its stderr in `log`; on failure the first lines of it
 * go into the diagnostic (a crashing tool prints pages of stack). */
bool sxp_tool_run(char *const argv[], const char *log, char **why)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 2);
            close(fd);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "proptool: error: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    if (pid < 0) {
        *why = sxp_xasprintf("fork failed: %s", strerror(errno));
        return false;
    }
    if (waitpid(pid, &st, 0) >= 0 && WIFEXITED(st) && !WEXITSTATUS(st))
        return true;
    size_t n = 0;
    char *text = (char *)sxp_read_file(log, &n);
    size_t keep = 0;
    for (int lines = 0; text && keep < n && lines < 6; keep++)
        lines += text[keep] == '\n';
    while (keep && text && (text[keep - 1] == '\n' || text[keep - 1] == 0))
        keep--;
    char *status = WIFSIGNALED(st) ? sxp_xasprintf("killed by signal %d", WTERMSIG(st))
                                   : sxp_xasprintf("status %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    *why = sxp_xasprintf("`%s` failed (%s)%s%.*s", argv[0], status, keep ? ":\n" : "", (int)keep,
                         text ? text : "");
    free(status);
    free(text);
    return false;
}


bool sxp_scratch_open(sxp_scratch *s, char **why)
{
    memset(s, 0, sizeof *s);
    const char *tmpdir = getenv("TMPDIR");
    s->dir = sxp_xasprintf("%s/proptool-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    if (mkdtemp(s->dir))
        return true;
    *why = sxp_xasprintf("cannot make a temporary directory: %s", strerror(errno));
    free(s->dir);
    s->dir = NULL;
    return false;
}

const char *sxp_scratch_path(sxp_scratch *s, const char *name)
{
    if (s->n == sizeof s->files / sizeof s->files[0])
        abort();  /* a fixed number of files per variant: a programming error */
    return s->files[s->n++] = sxp_xasprintf("%s/%s", s->dir, name);
}

void sxp_scratch_close(sxp_scratch *s)
{
    for (size_t i = 0; i < s->n; i++) {
        unlink(s->files[i]);
        free(s->files[i]);
    }
    if (s->dir)
        rmdir(s->dir);
    free(s->dir);
    memset(s, 0, sizeof *s);
}

sxp_image *sxp_variant_image(const sxp_image *spv, const char *target, uint8_t format, uint8_t *data, size_t size)
{
    sxp_image *v = sxp_image_new(spv->origin, target, format);
    v->data = data;
    v->size = size;
    if (spv->compile_options)
        v->compile_options = sxp_xstrdup(spv->compile_options);
    if (spv->link_options)
        v->link_options = sxp_xstrdup(spv->link_options);
    sxp_image_copy_props(v, spv);
    v->vf_set = spv->vf_set ? sxp_xstrdup(spv->vf_set) : NULL;
    v->vf_dummy = spv->vf_dummy;
    return v;
}

char *sxp_beside_self(const char *file)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return NULL;
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (!slash)
        return NULL;
    *slash = 0;
    char *p = sxp_xasprintf("%s/%s", self, file);
    if (access(p, X_OK) == 0)
        return p;
    free(p);
    return NULL;
}

void sxp_variant_fail(const char *origin, bool required, const char *variant, const char *device,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    if (required)
        sxp_error(origin, SXP_NONE, "%s variant: %s", variant, msg ? msg : fmt);
    else
        sxp_warn(origin, SXP_NONE, "no %s variant made for this image (%s cannot run it): %s", variant, device,
                 msg ? msg : fmt);
    free(msg);
}
