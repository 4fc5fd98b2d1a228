/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* pcache.c: the persistent cache of program binaries: one file per
 * (input images, options, adapter, device), named by a SHA-256 of those,
 * written atomically, checked (header and payload checksum) before use,
 * bounded in bytes (least recently used entries evicted) and shared safely
 * by processes using one directory at once. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sx-internal.h"

#define MAGIC "SXPCACH1"
#define FORMAT_VERSION 2u            /* 2: the payload checksum is wide_hash, not SHA-256 */
#define HEADER_SIZE 88u              /* magic 8, version 4, kind 4, size 8, key 32, payload checksum 32 */
#define MAX_PAYLOAD ((uint64_t)1 << 32)
#define LRU_GRANULE_SECONDS 3600

/* ------------------------------------------------------------ SHA-256 */

typedef struct {
    uint32_t h[8];
    uint64_t len;
    uint8_t buf[64];
    size_t fill;
} sha256;

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
    0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
    0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
    0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(sha256 *s, const uint8_t *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
    s->h[5] += f;
    s->h[6] += g;
    s->h[7] += h;
}

static void sha_init(sha256 *s)
{
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof(h0));
    s->len = 0;
    s->fill = 0;
}

static void sha_update(sha256 *s, const void *data, size_t n)
{
    const uint8_t *p = data;
    s->len += n;
    if (s->fill) {
        size_t take = 64 - s->fill < n ? 64 - s->fill : n;
        memcpy(s->buf + s->fill, p, take);
        s->fill += take;
        p += take;
        n -= take;
        if (s->fill < 64)
            return;
        sha_block(s, s->buf);
        s->fill = 0;
    }
    for (; n >= 64; p += 64, n -= 64)
        sha_block(s, p);
    memcpy(s->buf, p, n);
    s->fill = n;
}

static void sha_final(sha256 *s, uint8_t out[32])
{
    uint64_t bits = s->len * 8;
    uint8_t pad[72] = {0x80};
    size_t padn = (s->fill < 56 ? 56 : 120) - s->fill;
    for (int i = 0; i < 8; i++)
        pad[padn + i] = (uint8_t)(bits >> (56 - 8 * i));
    sha_update(s, pad, padn + 8);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

static void sha_str(sha256 *s, const char *str)
{
    sha_update(s, str ? str : "", strlen(str ? str : "") + 1);
}

static void sha_u64(sha256 *s, uint64_t v)
{
    sha_update(s, &v, sizeof(v));
}

/* ------------------------------------------------------ bulk hashing */

/* Images and binaries can be megabytes: they are hashed with XXH64 (public
 * algorithm by Yann Collet; gigabytes a second where SHA-256 here does
 * 60-200 MB/s), four seeds for 256 bits. The cache directory is private
 * (0700, checked), so the hash guards against accidents (a damaged file,
 * another image), for which 256 bits of XXH64 are plenty; the key itself
 * is still a SHA-256 over these digests and the other inputs. */
#define P1 0x9E3779B185EBCA87ull
#define P2 0xC2B2AE3D27D4EB4Full
#define P3 0x165667B19E3779F9ull
#define P4 0x85EBCA77C2B2AE63ull
#define P5 0x27D4EB2F165667C5ull

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static inline uint64_t rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static inline uint64_t xx_round(uint64_t acc, uint64_t in) { return rotl64(acc + in * P2, 31) * P1; }
static inline uint64_t xx_merge(uint64_t acc, uint64_t v) { return (acc ^ xx_round(0, v)) * P1 + P4; }

static uint64_t xxh64(const uint8_t *p, size_t n, uint64_t seed)
{
    const uint8_t *end = p + n;
    uint64_t h;
    if (n >= 32) {
        uint64_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
        for (; end - p >= 32; p += 32) {
            v1 = xx_round(v1, rd64(p));
            v2 = xx_round(v2, rd64(p + 8));
            v3 = xx_round(v3, rd64(p + 16));
            v4 = xx_round(v4, rd64(p + 24));
        }
        h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
        h = xx_merge(xx_merge(xx_merge(xx_merge(h, v1), v2), v3), v4);
    } else {
        h = seed + P5;
    }
    h += (uint64_t)n;
    for (; end - p >= 8; p += 8)
        h = rotl64(h ^ xx_round(0, rd64(p)), 27) * P1 + P4;
    if (end - p >= 4) {
        uint32_t w;
        memcpy(&w, p, 4);
        h = rotl64(h ^ ((uint64_t)w * P1), 23) * P2 + P3;
        p += 4;
    }
    for (; p < end; p++)
        h = rotl64(h ^ (*p * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    return h ^ (h >> 32);
}

/* 256 bits of `n` bytes: XXH64 under four seeds derived from `tag`. */
static void wide_hash(const void *data, size_t n, uint64_t tag, uint8_t out[32])
{
    for (uint64_t i = 0; i < 4; i++) {
        uint64_t h = xxh64(data, n, tag * 4 + i + 1);
        memcpy(out + 8 * i, &h, 8);
    }
}

/* ---------------------------------------------------------- the directory */

/* Create `dir` 0700, with `parent` also the one directory above it (the
 * XDG or ~/.cache directory). Reads no environment: the writer thread
 * calls it while the application may be changing it. */
static bool dir_make(const char *dir, bool parent)
{
    if (parent) {
        char up[4096];
        snprintf(up, sizeof(up), "%s", dir);
        char *slash = strrchr(up, '/');
        if (slash && slash != up) {
            *slash = '\0';
            if (mkdir(up, 0700) != 0 && errno != EEXIST)
                return false;
        }
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        SXI_LOG(SX_LOG_WARN, "program cache: cannot create '%s': %s; cache off", dir, strerror(errno));
        return false;
    }
    return true;
}

static bool dir_usable(const char *dir, const struct stat *st)
{
    if (!S_ISDIR(st->st_mode) || st->st_uid != geteuid() || (st->st_mode & 022)) {
        SXI_LOG(SX_LOG_WARN, "program cache: '%s' is not a directory of this user closed to others; cache off", dir);
        return false;
    }
    return true;
}

/* The cache directory from the environment, checked when it is there;
 * when it is not, `missing` says so and the first write makes it
 * (dir_made). False when the cache is off or unusable (logged). */
bool sxi_pcache_dir_get(sxi_pcache_dir *dir)
{
    dir->missing = dir->make_parent = false;
    const char *off = sxi_getenv("SX_CACHE");
    if (off && strcmp(off, "0") == 0)
        return false;
    const char *d = sxi_getenv("SX_CACHE_DIR"), *xdg = sxi_getenv("XDG_CACHE_HOME"), *home = sxi_getenv("HOME");
    int n;
    if (d && *d) {
        n = snprintf(dir->path, sizeof(dir->path), "%s", d);
    } else if (xdg && *xdg == '/') {
        n = snprintf(dir->path, sizeof(dir->path), "%s/sycl-ext", xdg);
        dir->make_parent = true;
    } else if (home && *home == '/') {
        n = snprintf(dir->path, sizeof(dir->path), "%s/.cache/sycl-ext", home);
        dir->make_parent = true;
    } else {
        return false;
    }
    if (n < 0 || (size_t)n >= sizeof(dir->path) - 80)
        return false;
    struct stat st;
    if (stat(dir->path, &st) != 0) { /* one call when it is there, which is nearly always */
        /* Nothing to read: made when an entry is written (off the build's thread). */
        dir->missing = errno == ENOENT;
        return dir->missing;
    }
    return dir_usable(dir->path, &st);
}

/* Before writing into a directory found missing: create it and check it. */
static bool dir_made(const sxi_pcache_dir *dir)
{
    struct stat st;
    return !dir->missing ||
           (dir_make(dir->path, dir->make_parent) && stat(dir->path, &st) == 0 && dir_usable(dir->path, &st));
}

static void entry_path(const sxi_pcache_dir *dir, const sxi_pcache_key *key, char *path, size_t size)
{
    static const char hex[] = "0123456789abcdef";
    size_t w = (size_t)snprintf(path, size, "%s/", dir->path);
    for (int i = 0; i < 32 && w + 2 < size; i++) {
        path[w++] = hex[key->digest[i] >> 4];
        path[w++] = hex[key->digest[i] & 15];
    }
    snprintf(path + w, size - w, ".bin");
}

/* ---------------------------------------------------------------- keys */

static int cmp_digest(const void *a, const void *b) { return memcmp(a, b, 32); }

void sxi_pcache_key_make(const struct sx_device_s *dev, const sxi_image *const *imgs, uint32_t n,
                         const char *compile_options, const char *link_options, sxi_pcache_key *key)
{
    struct sx_adapter_s *a = dev->adapter;
    char driver[256] = "";
    size_t got = 0;
    if (SXA_CALL(a, device, get_info, dev->handle, SX_DEVICE_INFO_DRIVER_VERSION, sizeof(driver) - 1, driver, &got) !=
        SX_SUCCESS)
        driver[0] = '\0';
    driver[sizeof(driver) - 1] = '\0';
    /* Each image by its own digest (computed once per image: the registry
     * lock, held by the caller, guards the cached one); the dependencies
     * sorted, so the order libraries were registered in does not change
     * the key. */
    uint8_t (*d)[32] = malloc((size_t)n * 32);
    sha256 s;
    for (uint32_t i = 0; d && i < n; i++) {
        sxi_image *im = (sxi_image *)imgs[i]; /* only its digest cache is written */
        if (!im->has_digest) {
            wide_hash(im->data, im->size, (uint64_t)im->kind << 32, im->digest);
            im->has_digest = true;
        }
        memcpy(d[i], im->digest, 32);
    }
    if (d && n > 2)
        qsort(d + 1, n - 1, 32, cmp_digest);
    sha_init(&s);
    sha_str(&s, "libsycl-ext program cache 2 " SX_VERSION_STRING);
    sha_str(&s, a->name);
    sha_u64(&s, a->version);
    sha_u64(&s, dev->backend);
    sha_str(&s, dev->name);
    sha_str(&s, driver);
    sha_str(&s, compile_options);
    sha_str(&s, link_options);
    sha_u64(&s, n);
    for (uint32_t i = 0; i < n; i++) {
        if (d)
            sha_update(&s, d[i], 32);
        else
            sha_update(&s, imgs[i]->data, imgs[i]->size); /* out of memory: slower, same inputs */
    }
    sha_final(&s, key->digest);
    free(d);
}

/* -------------------------------------------------------------- entries */

static void rejected(const char *path, const char *why)
{
    SXI_LOG(SX_LOG_WARN, "program cache: entry '%s' is damaged (%s); ignoring and replacing it", path, why);
    SXI_STAT(disk_rejects);
    unlink(path);
}

static uint32_t rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

sx_result sxi_pcache_load(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind *kind, void **data,
                          size_t *size)
{
    if (sxi_pcache_pending(dir, key, kind, data, size))
        return SX_SUCCESS;
    if (dir->missing)
        return SX_ERROR_INVALID_VALUE;
    char path[4200];
    entry_path(dir, key, path, sizeof(path));
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return SX_ERROR_INVALID_VALUE;
    struct stat st;
    uint8_t h[HEADER_SIZE];
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        rejected(path, "not a regular file");
        return SX_ERROR_INVALID_VALUE;
    }
    if ((uint64_t)st.st_size < HEADER_SIZE || (uint64_t)st.st_size - HEADER_SIZE > MAX_PAYLOAD) {
        close(fd);
        rejected(path, "wrong size");
        return SX_ERROR_INVALID_VALUE;
    }
    size_t total = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(total);
    if (!buf) {
        close(fd);
        return SX_ERROR_INVALID_VALUE;
    }
    while (got < total) {
        ssize_t r = read(fd, buf + got, total - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    const char *why = NULL;
    uint64_t len = 0;
    uint8_t sum[32];
    if (got != total) {
        why = "short read";
    } else {
        memcpy(h, buf, HEADER_SIZE);
        memcpy(&len, h + 16, 8);
        if (memcmp(h, MAGIC, 8) != 0)
            why = "bad magic";
        else if (rd32(h + 8) != FORMAT_VERSION)
            why = "unknown format version";
        else if (rd32(h + 12) == SX_IMAGE_KIND_UNKNOWN || rd32(h + 12) >= SX_IMAGE_KIND_COUNT_)
            why = "unknown image kind";
        else if (len != total - HEADER_SIZE)
            why = "payload length does not match the file";
        else if (memcmp(h + 24, key->digest, 32) != 0)
            why = "key does not match its name";
    }
    if (!why) {
        wide_hash(buf + HEADER_SIZE, (size_t)len, 0, sum);
        if (memcmp(sum, h + 56, 32) != 0)
            why = "payload checksum mismatch";
    }
    if (why) {
        close(fd);
        free(buf);
        rejected(path, why);
        return SX_ERROR_INVALID_VALUE;
    }
    /* Least recently used first out: a hit makes the entry young again
     * (at most once an hour: a hit need not write the inode each time). */
    if (time(NULL) - st.st_mtime >= LRU_GRANULE_SECONDS)
        futimens(fd, NULL);
    close(fd);
    memmove(buf, buf + HEADER_SIZE, (size_t)len);
    *kind = (sx_image_kind)rd32(h + 12);
    *data = buf;
    *size = (size_t)len;
    SXI_LOG(SX_LOG_DEBUG, "program cache: read '%s' (%zu bytes)", path, *size);
    return SX_SUCCESS;
}

/* ------------------------------------------------------ the size bound */

/* SX_CACHE_MAX_SIZE: bytes, with an optional K, M or G (powers of 1024);
 * 0 for no bound. */
uint64_t sxi_pcache_max_size(void)
{
    const char *v = sxi_getenv("SX_CACHE_MAX_SIZE");
    if (!v || !*v)
        return SXI_PCACHE_DEFAULT_MAX_SIZE;
    char *end;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    unsigned shift = 0;
    if (*end == 'K' || *end == 'k')
        shift = 10;
    else if (*end == 'M' || *end == 'm')
        shift = 20;
    else if (*end == 'G' || *end == 'g')
        shift = 30;
    if (shift)
        end++;
    if (errno || end == v || *end || *v == '-' || (shift && n > (UINT64_MAX >> shift))) {
        SXI_LOG(SX_LOG_WARN, "program cache: SX_CACHE_MAX_SIZE='%s' is not a size (bytes, or with K, M, G); using %llu",
                v, (unsigned long long)SXI_PCACHE_DEFAULT_MAX_SIZE);
        return SXI_PCACHE_DEFAULT_MAX_SIZE;
    }
    return (uint64_t)n << shift;
}

/* A temporary file older than this whose writer holds no lock on it was
 * left by a process that died writing (SIGKILL, a power cut). */
#define STALE_TMP_SECONDS 10

static bool is_entry_name(const char *n)
{
    size_t l = strlen(n);
    if (l != 64 + 4 || strcmp(n + 64, ".bin") != 0)
        return false;
    for (size_t i = 0; i < 64; i++)
        if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
            return false;
    return true;
}

static void remove_if_stale(int dfd, const char *name, time_t now)
{
    int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return;
    struct stat st;
    /* A live writer holds an exclusive lock on its file until it renames it. */
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && now - st.st_mtime >= STALE_TMP_SECONDS &&
        flock(fd, LOCK_EX | LOCK_NB) == 0 && unlinkat(dfd, name, 0) == 0) {
        SXI_STAT(disk_stale_removed);
        SXI_LOG(SX_LOG_INFO, "program cache: removed '%s', left by a process that died writing it", name);
    }
    close(fd);
}

typedef struct {
    char name[72];
    uint64_t size;
    struct timespec used;
} entry_info;

static int cmp_used(const void *a, const void *b)
{
    const struct timespec *x = &((const entry_info *)a)->used, *y = &((const entry_info *)b)->used;
    if (x->tv_sec != y->tv_sec)
        return x->tv_sec < y->tv_sec ? -1 : 1;
    return x->tv_nsec < y->tv_nsec ? -1 : x->tv_nsec > y->tv_nsec;
}

/* Remove stale temporary files, then the least recently used entries until
 * the directory holds at most `limit` bytes (0: no bound). One process at a
 * time (a lock file), so two do not both evict for the same excess;
 * readers never lock: an entry unlinked while open still reads whole. */
static void evict(const char *dir, uint64_t limit)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return;
    int lk = openat(dfd, ".lock", O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lk < 0 || flock(lk, LOCK_EX) != 0) {
        if (lk >= 0)
            close(lk);
        close(dfd);
        return;
    }
    int dfd2 = dup(dfd);
    DIR *d = dfd2 >= 0 ? fdopendir(dfd2) : NULL;
    entry_info *es = NULL;
    size_t n = 0, cap = 0;
    uint64_t total = 0;
    time_t now = time(NULL);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (strstr(e->d_name, ".bin.tmp.")) {
            remove_if_stale(dfd, e->d_name, now);
            continue;
        }
        struct stat st;
        if (!is_entry_name(e->d_name) || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode))
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            entry_info *ne = realloc(es, nc * sizeof(*ne));
            if (!ne)
                break;
            es = ne;
            cap = nc;
        }
        memcpy(es[n].name, e->d_name, strlen(e->d_name) + 1);
        es[n].size = (uint64_t)st.st_size;
        es[n].used = st.st_mtim;
        total += es[n].size;
        n++;
    }
    if (d)
        closedir(d);
    else if (dfd2 >= 0)
        close(dfd2);
    if (limit && total > limit) {
        qsort(es, n, sizeof(*es), cmp_used);
        for (size_t i = 0; i < n && total > limit; i++) {
            /* ENOENT: another process removed it (a damaged entry): already gone. */
            if (unlinkat(dfd, es[i].name, 0) == 0 || errno == ENOENT) {
                total -= es[i].size;
                SXI_STAT(disk_evictions);
                SXI_LOG(SX_LOG_INFO, "program cache: evicted '%s' (%llu bytes; the cache holds at most %llu)",
                        es[i].name, (unsigned long long)es[i].size, (unsigned long long)limit);
            }
        }
    }
    free(es);
    close(lk); /* releases the lock */
    close(dfd);
}

/* ------------------------------------------------------------- writing */

static bool write_all(int fd, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n) {
        ssize_t r = write(fd, b, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = ENOSPC;
            return false;
        }
        b += r;
        n -= (size_t)r;
    }
    return true;
}

/* Write with SIGXFSZ blocked in this thread: past the file size limit
 * (ulimit -f) the write fails with EFBIG instead of the default action
 * killing the application; a signal this raised is taken back. */
static bool write_entry(int fd, const uint8_t *h, const void *data, size_t size)
{
    sigset_t xfsz, old, pending;
    sigemptyset(&xfsz);
    sigaddset(&xfsz, SIGXFSZ);
    bool masked = pthread_sigmask(SIG_BLOCK, &xfsz, &old) == 0;
    bool was_pending = masked && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
    bool ok = write_all(fd, h, HEADER_SIZE) && write_all(fd, data, size);
    int e = errno;
    if (masked) {
        if (!was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ)) {
            static const struct timespec zero = {0, 0};
            while (sigtimedwait(&xfsz, NULL, &zero) < 0 && errno == EINTR)
                ;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    errno = e;
    return ok;
}

void sxi_pcache_store(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind kind, const void *data,
                      size_t size)
{
    sxi_pcache_store_bounded(dir, key, kind, data, size, sxi_pcache_max_size());
}

void sxi_pcache_store_bounded(const sxi_pcache_dir *dir, const sxi_pcache_key *key, sx_image_kind kind,
                              const void *data, size_t size, uint64_t limit)
{
    char path[4200], tmp[4300];
    if ((uint64_t)size > MAX_PAYLOAD || !dir_made(dir))
        return;
    entry_path(dir, key, path, sizeof(path));
    uint64_t total = (uint64_t)size + HEADER_SIZE;
    if (limit && total > limit) {
        SXI_LOG(SX_LOG_INFO, "program cache: a binary of %zu bytes is larger than the cache's bound (%llu bytes); not cached",
                size, (unsigned long long)limit);
        return;
    }
    uint8_t h[HEADER_SIZE];
    uint32_t v = FORMAT_VERSION, k = kind;
    uint64_t len = size;
    memcpy(h, MAGIC, 8);
    memcpy(h + 8, &v, 4);
    memcpy(h + 12, &k, 4);
    memcpy(h + 16, &len, 8);
    memcpy(h + 24, key->digest, 32);
    wide_hash(data, size, 0, h + 56);
    snprintf(tmp, sizeof(tmp), "%s.tmp.XXXXXX", path);
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        SXI_LOG(SX_LOG_WARN, "program cache: cannot create a file beside '%s': %s", path, strerror(errno));
        return;
    }
    /* Held until the rename: cleaners leave a file alone while its writer lives. */
    flock(fd, LOCK_EX | LOCK_NB);
    /* Readers see the old entry or the whole new one, never a part. */
    bool ok = write_entry(fd, h, data, size);
    int e = errno;
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        e = errno;
    }
    if (close(fd) != 0 && ok)
        SXI_LOG(SX_LOG_WARN, "program cache: closing '%s': %s", path, strerror(errno));
    if (!ok) {
        SXI_LOG(SX_LOG_WARN, "program cache: writing '%s' failed: %s; not cached", path, strerror(e));
        unlink(tmp);
    } else {
        SXI_STAT(disk_writes);
        SXI_LOG(SX_LOG_INFO, "program cache: wrote '%s' (%zu bytes)", path, size);
    }
    /* Whatever happened, keep the directory bounded and clean. */
    evict(dir->path, limit);
}

/* Markers in the cache directory that spare later processes hashing and
 * lookups for nothing (for inputs over 256 KiB; smaller ones are looked up
 * first, and the marker only decides whether to store: program.c):
 *   ".nobinary-<adapter>-<version>": no binary of a linked program;
 *   ".nobinary-<adapter>-<version>-k<kind>": a one-image program of that
 *   image kind has no binary, or its binary is the image itself. */
static void marker_path(const sxi_pcache_dir *dir, const struct sx_adapter_s *a, sx_image_kind kind, char *path,
                        size_t size)
{
    size_t w = (size_t)snprintf(path, size, "%s/.nobinary-", dir->path);
    for (const char *c = a->name; *c && w < size - 32; c++)
        path[w++] = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ? *c : '_';
    w += (size_t)snprintf(path + w, size - w, "-%x", a->version);
    if (kind != SX_IMAGE_KIND_UNKNOWN)
        snprintf(path + w, size - w, "-k%u", (unsigned)kind);
}

bool sxi_pcache_adapter_refuses(const sxi_pcache_dir *dir, const struct sx_adapter_s *a, sx_image_kind kind)
{
    char path[4300];
    struct stat st;
    if (dir->missing)
        return false;
    marker_path(dir, a, kind, path, sizeof(path));
    return lstat(path, &st) == 0;
}

void sxi_pcache_adapter_refused(const sxi_pcache_dir *dir, const struct sx_adapter_s *a, sx_image_kind kind)
{
    char path[4300];
    if (!dir_made(dir))
        return;
    marker_path(dir, a, kind, path, sizeof(path));
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0)
        close(fd);
}

void sxi_pcache_remove(const sxi_pcache_dir *dir, const sxi_pcache_key *key)
{
    char path[4200];
    if (dir->missing)
        return;
    sxi_pcache_flush(); /* an entry waiting to be written is written first, then goes */
    entry_path(dir, key, path, sizeof(path));
    unlink(path);
}
