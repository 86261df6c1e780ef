/* gen_shaders - builds gpuskin_shaders.h from shaders/.

   usage: gen_shaders SHADER_DIR OUT_HEADER WORK_DIR

   Compiles each shader with glslangValidator (Vulkan 1.2 target, so SPIR-V 1.5),
   checks the SPIR-V with spirv-val, and writes OUT_HEADER with
       static const uint32_t gpuskin_spv_<name>[];  gpuskin_spv_<name>_size (bytes)
   for each, plus the shared maths as the string gpuskin_glsl_skin.
   WORK_DIR receives the .spv files and tool logs. The output depends on nothing
   but the shader sources and the glslang version (no dates, no paths), so
   `make check-shaders` can regenerate it and cmp it against the committed file.
   GLSLANG_VALIDATOR and SPIRV_VAL in the environment override the tool names. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A compiled stage: source file in SHADER_DIR and the C name it gets. */
static const struct {
    const char *file;
    const char *name;
} shaders[] = {
    {"skin.vert", "skin_vert"},
    {"skin.frag", "skin_frag"},
    {"skin.comp", "skin_comp"},
};
static const char *shared_glsl = "gpuskin_skin.glsl";

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v && *v ? v : fallback;
}

/* Paths are pasted into shell commands inside single quotes. */
static int shell_safe(const char *s)
{
    return strchr(s, '\'') == NULL;
}

/* snprintf that treats truncation as the error it would be here. */
static int format(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= size) {
        fprintf(stderr, "gen_shaders: path too long\n");
        return 1;
    }
    return 0;
}

static int run(const char *cmd, const char *log)
{
    char line[4096];
    FILE *f;
    int rc = system(cmd);
    if (rc == 0) return 0;
    fprintf(stderr, "gen_shaders: failed (%d): %s\n", rc, cmd);
    f = fopen(log, "rb");
    if (f) {
        while (fgets(line, sizeof line, f)) fputs(line, stderr);
        fclose(f);
    }
    return 1;
}

static unsigned char *read_file(const char *path, size_t *out_size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data = NULL;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
        data = (unsigned char *)malloc((size_t)n + 1);
        if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
            free(data);
            data = NULL;
        }
        if (data) {
            data[n] = 0;
            *out_size = (size_t)n;
        }
    }
    fclose(f);
    return data;
}

/* SPIR-V is a stream of little-endian words; assemble them explicitly so the
   header is the same whatever the build machine's byte order. */
static int emit_spirv(FILE *out, const char *name, const unsigned char *spv, size_t size)
{
    size_t i, words = size / 4;
    if (size == 0 || size % 4 != 0) {
        fprintf(stderr, "gen_shaders: %s: SPIR-V size %lu is not a multiple of 4\n", name, (unsigned long)size);
        return 1;
    }
    fprintf(out, "static const uint32_t gpuskin_spv_%s[%lu] = {", name, (unsigned long)words);
    for (i = 0; i < words; ++i) {
        uint32_t w = (uint32_t)spv[i * 4] | (uint32_t)spv[i * 4 + 1] << 8 | (uint32_t)spv[i * 4 + 2] << 16 |
                     (uint32_t)spv[i * 4 + 3] << 24;
        fprintf(out, "%s0x%08lx%s", i % 8 == 0 ? "\n    " : " ", (unsigned long)w, i + 1 < words ? "," : "");
    }
    fprintf(out, "\n};\n");
    fprintf(out, "#define gpuskin_spv_%s_size %luu /* bytes */\n\n", name, (unsigned long)size);
    return 0;
}

/* The GLSL goes out as a byte array, not a string literal: C99 compilers need
   only support 4095-character literals and -Wpedantic says so. */
static void emit_text(FILE *out, const char *name, const unsigned char *text, size_t size)
{
    size_t i;
    fprintf(out, "/* %s, NUL-terminated (%lu bytes of text). It is the file shaders/%s; a host\n"
                 "   can compile it into its own shaders, see that file's head for the #extensions. */\n",
            name, (unsigned long)size, shared_glsl);
    fprintf(out, "static const char %s[%lu] = {", name, (unsigned long)size + 1);
    for (i = 0; i <= size; ++i) {
        unsigned c = i < size ? text[i] : 0u;
        fprintf(out, "%s0x%02x%s", i % 16 == 0 ? "\n    " : " ", c, i < size ? "," : "");
    }
    fprintf(out, "\n};\n\n");
}

int main(int argc, char **argv)
{
    const char *glslang = env_or("GLSLANG_VALIDATOR", "glslangValidator");
    const char *spirv_val = env_or("SPIRV_VAL", "spirv-val");
    const char *dir, *out_path, *work;
    char cmd[8192], spv_path[4096], log_path[4096], src_path[4096], tmp_path[4096];
    unsigned char *data;
    size_t size, i;
    FILE *out;
    int failed = 0;

    if (argc != 4) {
        fprintf(stderr, "usage: %s SHADER_DIR OUT_HEADER WORK_DIR\n", argv[0]);
        return 2;
    }
    dir = argv[1];
    out_path = argv[2];
    work = argv[3];
    if (!shell_safe(dir) || !shell_safe(work) || !shell_safe(glslang) || !shell_safe(spirv_val)) {
        fprintf(stderr, "gen_shaders: paths must not contain a single quote\n");
        return 2;
    }
    if (format(tmp_path, sizeof tmp_path, "%s.tmp", out_path)) return 1;
    out = fopen(tmp_path, "wb");
    if (!out) {
        fprintf(stderr, "gen_shaders: cannot write %s\n", tmp_path);
        return 1;
    }
    fprintf(out, "/* gpuskin_shaders.h - GENERATED by tools/gen_shaders.c from shaders/. Do not edit.\n"
                 "   `make shaders` regenerates it; `make check-shaders` fails when it is stale.\n"
                 "   SPIR-V from glslangValidator --target-env vulkan1.2, checked by spirv-val. */\n"
                 "#ifndef GPUSKIN_SHADERS_H\n#define GPUSKIN_SHADERS_H\n\n#include <stdint.h>\n\n");

    for (i = 0; i < sizeof shaders / sizeof shaders[0] && !failed; ++i) {
        /* No -g: debug info would embed file paths and break reproducibility. */
        if (format(src_path, sizeof src_path, "%s/%s", dir, shaders[i].file) ||
            format(spv_path, sizeof spv_path, "%s/%s.spv", work, shaders[i].name) ||
            format(log_path, sizeof log_path, "%s/%s.log", work, shaders[i].name) ||
            format(cmd, sizeof cmd, "'%s' --target-env vulkan1.2 -V -I'%s' -o '%s' '%s' > '%s' 2>&1", glslang, dir,
                   spv_path, src_path, log_path) ||
            run(cmd, log_path)) {
            failed = 1;
            break;
        }
        if (format(cmd, sizeof cmd, "'%s' --target-env vulkan1.2 '%s' > '%s' 2>&1", spirv_val, spv_path, log_path) ||
            run(cmd, log_path)) {
            failed = 1;
            break;
        }
        data = read_file(spv_path, &size);
        if (!data) {
            fprintf(stderr, "gen_shaders: cannot read %s\n", spv_path);
            failed = 1;
            break;
        }
        fprintf(out, "/* shaders/%s */\n", shaders[i].file);
        failed = emit_spirv(out, shaders[i].name, data, size);
        free(data);
    }
    if (!failed) {
        data = format(src_path, sizeof src_path, "%s/%s", dir, shared_glsl) ? NULL : read_file(src_path, &size);
        if (!data) {
            fprintf(stderr, "gen_shaders: cannot read %s\n", src_path);
            failed = 1;
        } else {
            emit_text(out, "gpuskin_glsl_skin", data, size);
            free(data);
        }
    }
    fprintf(out, "#endif /* GPUSKIN_SHADERS_H */\n");
    if (fclose(out) != 0) failed = 1;
    if (failed || rename(tmp_path, out_path) != 0) {
        remove(tmp_path);
        fprintf(stderr, "gen_shaders: %s not written\n", out_path);
        return 1;
    }
    return 0;
}
