/* The CSV reader: both header forms, columns in any order, alignment and offset columns,
 * blank lines and CRLF, and each bad input refused with its line and column: a missing or
 * extra field, a non-decimal or signed number, lower > upper, an alignment that is not a power
 * of two, an empty or duplicate id, an unknown or repeated column, a missing column, an empty
 * file. Zero sizes and empty lifetimes are accepted: they hold no byte, conflict with nothing,
 * and are placed at 0. Ids are unique even beside a group column; rows with one `group` value
 * are one buffer (groups): placed at one offset and written back row by row with the column;
 * rows of one group with another size or alignment, or lifetimes that overlap, are refused
 * naming both lines, as are empty or quoted group values. */
#include <string.h>

#include "expect.h"
#include "place_test_util.h"

static ar_place_csv_t *parse(char const *text, ar_place_csv_error_t *error) {
    ar_place_csv_t *csv = NULL;
    ar_status_t status = ar_place_csv_parse(text, strlen(text), &csv, error);
    if (status != ar_status_success_k) expect_ptr_null(csv);
    return csv;
}

static void refused(char const *text, size_t line, size_t column, char const *words) {
    ar_place_csv_error_t error;
    ar_place_csv_t *csv = parse(text, &error);
    expect_ptr_null(csv);
    expect_size_eq(error.line, line);
    expect_size_eq(error.column, column);
    if (!strstr(error.message, words)) {
        ++expect_failures_;
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", error.message, words);
    }
    ar_place_csv_free(csv);
}

int main(void) {
    ar_place_csv_error_t error;
    ar_place_csv_t *csv = parse("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\n", &error);
    expect_ptr_not_null(csv);
    if (csv) {
        expect_size_eq(csv->problem.count, 2);
        expect_str_eq(csv->ids[1], "b2");
        expect_u64_eq(csv->rows[1].upper, 9);
        expect_ptr_null(csv->offsets);
        expect_false(csv->has_alignment);
        expect_size_eq(csv->lines[1], 3);
    }
    ar_place_csv_free(csv);
    /* The older header, another order, CRLF, a blank line, alignment and offset columns. */
    csv = parse("size,end,start,buffer,alignment,offset\r\n\r\n8,5,1,x,4,16\r\n 0 ,2,2,y,1,0\n",
                &error);
    expect_ptr_not_null(csv);
    if (csv) {
        expect_size_eq(csv->problem.count, 2);
        expect_u64_eq(csv->rows[0].size, 8);
        expect_u64_eq(csv->rows[0].lower, 1);
        expect_u64_eq(csv->rows[0].upper, 5);
        expect_u64_eq(csv->rows[0].alignment, 4);
        expect_u64_eq(csv->offsets[0], 16);
        expect_true(csv->has_alignment);
        expect_size_eq(csv->lines[0], 3);
        expect_size_eq(csv->lines[1], 4);
        /* Zero size and an empty lifetime: placed at 0, no conflict. */
        uint64_t offsets[2] = {7, 7};
        ar_place_result_t result;
        expect_int_eq(ar_place(&csv->problem, NULL, offsets, &result), ar_status_success_k);
        expect_u64_eq(offsets[1], 0);
        expect_u64_eq(result.height, 8);
    }
    ar_place_csv_free(csv);
    /* A header alone: no buffers, height 0. */
    csv = parse("id,lower,upper,size\n", &error);
    expect_ptr_not_null(csv);
    if (csv) expect_size_eq(csv->problem.count, 0);
    ar_place_csv_free(csv);

    refused("", 1, 0, "no header");
    refused("\n\n", 2, 0, "no header");
    refused("id,lower,upper\n", 1, 0, "lacks the column \"size\"");
    refused("id,lower,upper,size,colour\n", 1, 5, "unknown column \"colour\"");
    refused("id,lower,upper,size,gaps\n", 1, 5, "unknown column \"gaps\"");
    refused("id,lower,start,upper,size\n", 1, 3, "given twice");
    refused("id,lower,upper,size\na,0,1\n", 2, 4, "3 fields where the header has 4");
    refused("id,lower,upper,size\na,0,1,2,3\n", 2, 5, "5 fields");
    refused("id,lower,upper,size\na,0,1,2\nb,0,x,2\n", 3, 3, "upper \"x\" is not a decimal");
    refused("id,lower,upper,size\na,-1,1,2\n", 2, 2, "lower \"-1\"");
    refused("id,lower,upper,size\na,0,1,1.5\n", 2, 4, "size \"1.5\"");
    refused("id,lower,upper,size\na,0,1,\n", 2, 4, "size \"\"");
    refused("id,lower,upper,size\na,0,99999999999999999999,1\n", 2, 3, "below 2^63");
    refused("id,lower,upper,size\na,5,4,1\n", 2, 3, "upper 4 is below lower 5");
    refused("id,lower,upper,size\na,0,1,72057594037927936\n", 2, 4, "size at or past 2^56");
    refused("id,lower,upper,size,alignment\na,0,1,1,3\n", 2, 5, "not a power of two");
    refused("id,lower,upper,size,alignment\na,0,1,1,0\n", 2, 5, "not a power of two");
    refused("id,lower,upper,size\n,0,1,1\n", 2, 1, "an empty id");
    refused("id,lower,upper,size\n\"a\",0,1,1\n", 2, 1, "quoted");
    refused("lower,id,upper,size\n0,a,1,1\n\n1,b,2,2\n2,a,3,3\n", 5, 2,
            "duplicate id \"a\" (first on line 2)");
    /* Ids are unique, as MiniMalloc's are: a repeated one is refused even where the rows could
     * be one buffer (same size, disjoint lifetimes), with or without a group column. */
    refused("id,lower,upper,size\nx,0,2,8\nx,2,5,8\n", 3, 1,
            "duplicate id \"x\" (first on line 2)");
    refused("id,lower,upper,size,group\nx,0,2,8,g\nx,2,5,8,g\n", 3, 1,
            "duplicate id \"x\" (first on line 2)");
    /* Rows of one group: one buffer, its rows at one offset, written back row by row. */
    csv = parse("id,lower,upper,size,group\nx,0,2,8,g\ny,1,3,4,y\nx2,2,5,8,g\nx3,7,7,8,g\n"
                "z,3,9,8,h\n",
                &error);
    expect_ptr_not_null(csv);
    if (csv) {
        expect_size_eq(csv->problem.count, 5);
        expect_ptr_not_null(csv->groups);
        expect_ptr_not_null(csv->group_names);
        expect_true(csv->problem.groups == csv->groups);
        size_t const want[] = {0, 1, 0, 0, 4};
        for (size_t i = 0; csv->groups && i < 5; ++i) expect_size_eq(csv->groups[i], want[i]);
        expect_str_eq(csv->ids[2], "x2");
        expect_str_eq(csv->group_names[2], "g");
        expect_str_eq(csv->group_names[4], "h");
        uint64_t offsets[5];
        ar_place_result_t result;
        expect_int_eq(ar_place(&csv->problem, NULL, offsets, &result), ar_status_success_k);
        expect_u64_eq(offsets[0], offsets[2]);
        expect_u64_eq(offsets[0], offsets[3]);
        expect_u64_eq(result.height, 16); /* x and z together, y beside x */
        expect_true(ar_place_check(&csv->problem, offsets, 0, NULL));
        char *text = NULL;
        size_t length = 0;
        FILE *out = open_memstream(&text, &length);
        expect_true(ar_place_csv_write(out, csv, offsets));
        fclose(out);
        expect_true(text && strncmp(text, "id,lower,upper,size,group,offset\nx,0,2,8,g,", 42) == 0);
        ar_place_csv_t *back = parse(text, &error);
        expect_ptr_not_null(back);
        if (back) {
            expect_size_eq(back->problem.count, 5);
            expect_str_eq(back->ids[2], "x2");
            expect_ptr_not_null(back->group_names);
            if (back->group_names) expect_str_eq(back->group_names[2], "g");
            for (size_t i = 0; back->groups && i < 5; ++i) expect_size_eq(back->groups[i], want[i]);
            expect_u64_eq(back->offsets[2], offsets[0]);
        }
        ar_place_csv_free(back);
        free(text);
    }
    ar_place_csv_free(csv);
    /* The group column anywhere, with alignment: written back in its place among the others. */
    csv = parse("group,size,id,start,end,alignment\nq,8,a,0,1,4\nq,8,b,1,2,4\n", &error);
    expect_ptr_not_null(csv);
    if (csv) {
        expect_size_eq(csv->groups ? csv->groups[1] : 9, 0);
        char *text = NULL;
        size_t length = 0;
        FILE *out = open_memstream(&text, &length);
        expect_true(ar_place_csv_write(out, csv, NULL));
        fclose(out);
        expect_str_eq(text, "id,lower,upper,size,alignment,group\na,0,1,8,4,q\nb,1,2,8,4,q\n");
        free(text);
    }
    ar_place_csv_free(csv);
    /* Every group value once, or no group column: no groups; the column is still written. */
    csv = parse("id,lower,upper,size,group\nx,0,2,8,g\ny,1,3,4,h\n", &error);
    expect_ptr_not_null(csv);
    if (csv) {
        expect_ptr_null(csv->groups);
        expect_ptr_not_null(csv->group_names);
        char *text = NULL;
        size_t length = 0;
        FILE *out = open_memstream(&text, &length);
        expect_true(ar_place_csv_write(out, csv, NULL));
        fclose(out);
        expect_str_eq(text, "id,lower,upper,size,group\nx,0,2,8,g\ny,1,3,4,h\n");
        free(text);
    }
    ar_place_csv_free(csv);
    csv = parse("id,lower,upper,size\nx,0,2,8\ny,1,3,4\n", &error);
    expect_ptr_not_null(csv);
    if (csv) {
        expect_ptr_null(csv->groups);
        expect_ptr_null(csv->group_names);
    }
    ar_place_csv_free(csv);
    csv = parse("id,lower,upper,size,group\n", &error); /* no rows: still a group column */
    expect_ptr_not_null(csv);
    if (csv) {
        expect_ptr_not_null(csv->group_names);
        expect_ptr_null(csv->groups);
    }
    ar_place_csv_free(csv);
    /* A group's rows: one size, one alignment, disjoint lifetimes; errors at the group field. */
    refused("id,lower,upper,size,group\nx,0,2,8,g\ny,3,5,4,g\n", 3, 5,
            "group \"g\" (first on line 2) with size 4, not 8");
    refused("id,lower,upper,size,alignment,group\nx,0,2,8,4,g\n\ny,3,5,8,8,g\n", 4, 6,
            "group \"g\" (first on line 2) with alignment 8, not 4");
    refused("id,lower,upper,size,group\nx,0,4,8,g\ny,0,1,1,h\nz,3,5,8,g\n", 4, 5,
            "group \"g\" on lines 2 and 4: lifetimes [0, 4) and [3, 5) overlap");
    /* Of two overlapping pairs, the one whose later line comes first. */
    refused("start,group,end,size,buffer\n0,x,10,1,a\n20,x,30,1,b\n4,y,6,1,c\n25,x,26,1,d\n"
            "5,y,9,1,e\n",
            5, 2, "group \"x\" on lines 3 and 5: lifetimes [20, 30) and [25, 26) overlap");
    refused("id,lower,upper,size,group\na,0,10,1,x\nb,0,10,1,x\n", 3, 5, "on lines 2 and 3");
    refused("id,lower,upper,size,group\na,0,1,1,\n", 2, 5, "an empty group");
    refused("id,lower,upper,size,group\na,0,1,1, \t\n", 2, 5, "an empty group");
    refused("id,lower,upper,size,group\na,0,1,1,\"g\"\n", 2, 5, "a quoted group");
    refused("id,lower,upper,size,group,group\n", 1, 6, "column \"group\" given twice");

    /* Tens of thousands of rows: no cap. */
    size_t rows = 30000;
    char *big = malloc(rows * 40 + 64), *at = big;
    at += sprintf(at, "id,lower,upper,size\n");
    for (size_t i = 0; i < rows; ++i)
        at += sprintf(at, "n%zu,%zu,%zu,%zu\n", i, i, i + 7, 1 + i % 13);
    csv = parse(big, &error);
    expect_ptr_not_null(csv);
    if (csv) {
        expect_size_eq(csv->problem.count, rows);
        uint64_t *offsets = malloc(rows * sizeof *offsets);
        ar_place_result_t result;
        expect_int_eq(ar_place(&csv->problem, NULL, offsets, &result), ar_status_success_k);
        expect_true(ar_place_check(&csv->problem, offsets, 0, NULL));
        free(offsets);
    }
    ar_place_csv_free(csv);
    free(big);
    return expect_finish();
}
