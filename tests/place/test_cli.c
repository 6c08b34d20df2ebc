/* `arenacert place|import|export-problem` as a user runs them (argv[1] the arenacert binary,
 * argv[2] workloads/data/minimalloc): `place --list`; every strategy on a production instance
 * writes every row with an offset, and its import certifies (verdict 0); a placement spoiled by
 * one overlap imports to a plan the certificate rejects; a capacity below the bound exits 1; a
 * bad CSV exits 2 naming its line and column; import without an offset column exits 2;
 * export-problem of a generated plan places and certifies again (no group column where no name
 * is declared fresh twice). Rows of one group place at one offset (the summary counts buffers
 * and rows), are written back with the column, import as one plane name and certify; a group's
 * rows at two offsets make import exit 1 naming both lines; a repeated id exits 2; a decoder
 * plan's mask, declared fresh twice, exports as two rows of group mask with ids mask and mask.1;
 * --threads 2 places (the summary says so), --threads 0 and 65 exit 2.
 * Uses a scratch folder. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expect.h"

static char const *tool, *data;
static char dir[64];

/* Run a shell command; its exit status. stdout/stderr go where the command says. */
static int sh(char const *format, ...) __attribute__((format(printf, 1, 2)));
static int sh(char const *format, ...) {
    char command[2048];
    va_list args;
    va_start(args, format);
    vsnprintf(command, sizeof command, format, args);
    va_end(args);
    int raw = system(command);
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
}

static char *slurp(char const *name) {
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    char *text = calloc(1 << 20, 1);
    if (text) fread(text, 1, (1 << 20) - 1, file);
    fclose(file);
    return text;
}

static size_t lines(char const *text) {
    size_t count = 0;
    for (; text && *text; ++text) count += *text == '\n';
    return count;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: test_cli ARENACERT DATA_DIR\n");
        return 2;
    }
    tool = argv[1];
    data = argv[2];
    snprintf(dir, sizeof dir, "/tmp/place_cli_XXXXXX");
    if (!mkdtemp(dir)) return 2;

    expect_int_eq(sh("%s place --list > %s/list", tool, dir), 0);
    char *list = slurp("list");
    expect_str_eq(list, "greedy-by-size\ngreedy-by-breadth\nfirst-fit\nbest-fit\nsearch\nlns\n");
    free(list);

    char const *strategies[] = {"greedy-by-size", "greedy-by-breadth", "first-fit", "best-fit",
                                "search"};
    for (int s = 0; s < 5; ++s) {
        expect_int_eq(sh("%s place %s/B.1048576.csv --strategy %s --time-limit 1 > %s/out.csv "
                         "2> %s/err",
                         tool, data, strategies[s], dir, dir),
                      0);
        char *out = slurp("out.csv"), *err = slurp("err");
        expect_size_eq(lines(out), 171);
        expect_true(out && strncmp(out, "id,lower,upper,size,offset\n", 27) == 0);
        expect_str_contains(err, "lower_bound: 1048576");
        free(out);
        free(err);
        expect_int_eq(sh("%s import %s/out.csv --alignment 1 | %s certify - > %s/verdict", tool,
                         dir, tool, dir),
                      0);
        char *verdict = slurp("verdict");
        expect_str_contains(verdict, "verdict: 0\n");
        free(verdict);
    }
    /* One overlap: the second row takes the first row's offset while both are live. */
    expect_int_eq(sh("printf 'id,lower,upper,size,offset\\na,0,10,8,0\\nb,2,5,4,16\\n"
                     "c,3,12,8,4\\n' > %s/bad.csv",
                     dir),
                  0);
    expect_int_eq(sh("%s import %s/bad.csv | %s certify - > %s/verdict", tool, dir, tool, dir), 1);
    char *verdict = slurp("verdict");
    expect_str_contains(verdict, "verdict: ");
    expect_false(verdict && strstr(verdict, "verdict: 0\n"));
    free(verdict);
    /* A capacity below the bound: exit 1, nothing on stdout. */
    expect_int_eq(sh("%s place %s/D.1048576.csv --strategy best-fit --capacity 900000 > %s/out.csv "
                     "2> /dev/null",
                     tool, data, dir),
                  1);
    expect_int_eq(sh("%s place %s/D.1048576.csv --strategy search --capacity 1048576 "
                     "--time-limit 30 > %s/out.csv 2> /dev/null",
                     tool, data, dir),
                  0);
    /* Bad input: exit 2 with line and column. */
    expect_int_eq(sh("printf 'id,lower,upper,size\\na,0,1,2\\nb,0,one,2\\n' > %s/rows.csv", dir),
                  0);
    expect_int_eq(sh("%s place %s/rows.csv --strategy first-fit 2> %s/err", tool, dir, dir), 2);
    char *err = slurp("err");
    expect_str_contains(err, "line 3, column 3");
    free(err);
    expect_int_eq(sh("%s import %s/rows.csv 2> /dev/null", tool, dir), 2);
    expect_int_eq(sh("%s import %s/B.1048576.csv 2> %s/err", tool, data, dir), 2);
    err = slurp("err");
    expect_str_contains(err, "no offset column");
    free(err);
    expect_int_eq(sh("%s place %s/rows.csv --strategy nope 2> /dev/null", tool, dir), 2);
    expect_int_eq(sh("%s place %s/rows.csv --capacity -3 2> /dev/null", tool, dir), 2);
    expect_int_eq(sh("%s place 2> /dev/null", tool), 2);
    /* Rows of one group: one buffer, one offset, one plane name (its first row's id),
     * certified; two offsets: import exits 1. Ids stay unique: a repeated one exits 2. */
    expect_int_eq(sh("printf 'id,lower,upper,size,group\\nx,0,2,10,x\\ny,2,4,10,y\\n"
                     "x2,4,6,10,x\\nz,1,5,6,z\\n' > %s/grouped.csv",
                     dir),
                  0);
    for (int s = 0; s < 5; ++s) {
        expect_int_eq(sh("%s place %s/grouped.csv --strategy %s > %s/out.csv 2> %s/err", tool, dir,
                         strategies[s], dir, dir),
                      0);
        err = slurp("err");
        expect_str_contains(err, "buffers: 3\nrows: 4\nheight: 16\n");
        free(err);
        char *out = slurp("out.csv");
        expect_size_eq(lines(out), 5);
        expect_str_contains(out, "id,lower,upper,size,group,offset\nx,0,2,10,x,");
        expect_str_contains(out, "\nx2,4,6,10,x,");
        free(out);
        expect_int_eq(sh("%s import %s/out.csv > %s/plan.json && %s certify %s/plan.json > "
                         "%s/verdict",
                         tool, dir, dir, tool, dir, dir),
                      0);
        expect_int_eq(sh("grep -q '\"x2\"' %s/plan.json", dir), 1);
    }
    expect_int_eq(sh("printf 'id,lower,upper,size\\nx,0,2,10\\ny,2,4,10\\nx,4,6,10\\n' > "
                     "%s/repeated.csv",
                     dir),
                  0);
    expect_int_eq(sh("%s place %s/repeated.csv 2> %s/err", tool, dir, dir), 2);
    err = slurp("err");
    expect_str_contains(err, "line 4, column 1: duplicate id \"x\" (first on line 2)");
    free(err);
    expect_int_eq(sh("printf 'id,lower,upper,size,group,offset\\nx,0,2,10,g,0\\ny,2,4,10,y,0\\n"
                     "x2,4,6,10,g,16\\nz,1,5,6,z,10\\n' > %s/split.csv",
                     dir),
                  0);
    expect_int_eq(sh("%s import %s/split.csv > /dev/null 2> %s/err", tool, dir, dir), 1);
    err = slurp("err");
    expect_str_contains(err, "line 4: offset 16 where line 2 has 0 (rows of group g");
    free(err);
    /* A name declared fresh again later is a second row of its group, under an id of its own. */
    expect_int_eq(sh("%s gen decoder --preset tiny > %s/decoder.json", tool, dir), 0);
    expect_int_eq(sh("%s export-problem %s/decoder.json > %s/problem.csv", tool, dir, dir), 0);
    expect_int_eq(sh("head -1 %s/problem.csv > %s/header && awk -F, '$6 == \"mask\" {print $1}' "
                     "%s/problem.csv > %s/ids && cut -d, -f1 %s/problem.csv | sort | uniq -d > "
                     "%s/repeats",
                     dir, dir, dir, dir, dir, dir),
                  0);
    char *text = slurp("header");
    expect_str_eq(text, "id,lower,upper,size,alignment,group,offset\n");
    free(text);
    text = slurp("ids");
    expect_str_eq(text, "mask\nmask.1\n");
    free(text);
    text = slurp("repeats");
    expect_str_eq(text, "");
    free(text);
    expect_int_eq(sh("%s place %s/problem.csv --strategy search --time-limit 2 2>/dev/null | %s "
                     "import - --alignment 256 | %s certify - > /dev/null",
                     tool, dir, tool, tool),
                  0);
    /* A generated plan's planes as a problem, placed again and certified. */
    expect_int_eq(sh("%s gen training --preset small > %s/plan.json", tool, dir), 0);
    expect_int_eq(sh("%s export-problem %s/plan.json > %s/problem.csv", tool, dir, dir), 0);
    text = slurp("problem.csv"); /* no name declared fresh twice: no group column */
    expect_true(strncmp(text, "id,lower,upper,size,alignment,offset\n", 37) == 0);
    free(text);
    expect_int_eq(sh("%s place %s/problem.csv --strategy best-fit 2>/dev/null | %s import - "
                     "--alignment 256 | %s certify - > /dev/null",
                     tool, dir, tool, tool),
                  0);
    /* Its own placement, as exported, certifies too. */
    expect_int_eq(
        sh("%s import %s/problem.csv --alignment 256 | %s certify - > /dev/null", tool, dir, tool),
        0);
    /* lns, seeded with a move budget: the same rows twice; a perfect packing's planted
     * offsets pass --check at the bound, one row moved onto another fails with both lines. */
    expect_int_eq(sh("%s gen-packing 400 --seed 3 --offsets > %s/packing.csv", tool, dir), 0);
    expect_int_eq(sh("%s place --check %s/packing.csv > %s/check", tool, dir, dir), 0);
    text = slurp("check");
    expect_str_contains(text, "lower_bound: 1048576\n");
    expect_str_contains(text, "height/lower_bound: 1.000000\nvalid: yes\n");
    free(text);
    expect_int_eq(sh("sed '2s/,[0-9]*$/,1/' %s/packing.csv > %s/bad.csv", dir, dir), 0);
    expect_int_eq(sh("%s place --check %s/bad.csv > %s/check", tool, dir, dir), 1);
    text = slurp("check");
    expect_str_contains(text, "valid: no\noverlap: lines ");
    free(text);
    expect_int_eq(sh("%s place --check %s/problem.csv --strategy lns > /dev/null", tool, dir), 0);
    expect_int_eq(sh("%s gen-packing 2100 --seed 3 > %s/bare.csv", tool, dir), 0); /* past 2048:
                                                                                   moves only */
    expect_int_eq(sh("%s place --check %s/bare.csv 2> %s/err", tool, dir, dir), 2);
    text = slurp("err");
    expect_str_contains(text, "needs an offset column");
    free(text);
    for (int k = 0; k < 2; ++k)
        expect_int_eq(sh("%s place %s/bare.csv --strategy lns --seed 5 --moves 50 > %s/lns%d.csv "
                         "2>/dev/null",
                         tool, dir, dir, k),
                      0);
    expect_int_eq(sh("cmp -s %s/lns0.csv %s/lns1.csv", dir, dir), 0);
    expect_int_eq(sh("%s place --check %s/lns0.csv > /dev/null", tool, dir), 0);
    expect_int_eq(sh("%s gen-packing 0 > /dev/null 2>&1", tool), 2);
    expect_int_eq(sh("%s gen-packing 13 --height 3 --span 4 > /dev/null 2>&1", tool), 2);
    expect_int_eq(sh("%s place %s/bare.csv --moves 0 > /dev/null 2>&1", tool, dir), 2);
    /* --threads: two workers place and say so; 0 and 65 are refused. */
    expect_int_eq(sh("%s place %s/bare.csv --threads 2 --time-limit 1 > %s/two.csv 2> %s/err", tool,
                     dir, dir, dir),
                  0);
    char *two = slurp("err");
    expect_str_contains(two, "threads: 2\n");
    free(two);
    expect_int_eq(sh("%s place --check %s/two.csv > /dev/null", tool, dir), 0);
    expect_int_eq(sh("%s place %s/bare.csv --threads 0 > /dev/null 2>&1", tool, dir), 2);
    expect_int_eq(sh("%s place %s/bare.csv --threads 65 > /dev/null 2>&1", tool, dir), 2);
    sh("rm -rf %s", dir);
    return expect_finish();
}
