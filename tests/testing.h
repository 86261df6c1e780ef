/* Minimal test harness shared by gpuskin's test programs.
   Each program ends with the line "N passed, N failed" (counted in test cases);
   tests/run_all.sh adds those lines up. A case fails when any CHECK in it fails. */
#ifndef GPUSKIN_TESTING_H
#define GPUSKIN_TESTING_H
#include <math.h>
#include <stdio.h>
#include <string.h>

static int gt_passed, gt_failed, gt_case_failed;
static const char *gt_filter; /* argv[1]: run only cases whose name contains it */

#define CHECK(cond)                                                                                       \
    do {                                                                                                  \
        if (!(cond)) {                                                                                    \
            fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                    \
            gt_case_failed = 1;                                                                           \
        }                                                                                                 \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                                             \
    do {                                                                                                  \
        double gt_a_ = (double)(a), gt_b_ = (double)(b), gt_t_ = (double)(tol);                           \
        if (!(fabs(gt_a_ - gt_b_) <= gt_t_)) {                                                            \
            fprintf(stderr, "  %s:%d: CHECK_NEAR failed: %s = %.9g, %s = %.9g, tolerance %.3g\n",         \
                    __FILE__, __LINE__, #a, gt_a_, #b, gt_b_, gt_t_);                                     \
            gt_case_failed = 1;                                                                           \
        }                                                                                                 \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                                \
    do {                                                                                                  \
        long long gt_a_ = (long long)(a), gt_b_ = (long long)(b);                                         \
        if (gt_a_ != gt_b_) {                                                                             \
            fprintf(stderr, "  %s:%d: CHECK_EQ failed: %s = %lld, %s = %lld\n", __FILE__, __LINE__, #a,   \
                    gt_a_, #b, gt_b_);                                                                    \
            gt_case_failed = 1;                                                                           \
        }                                                                                                 \
    } while (0)

#define RUN_TEST(fn)                                                                                      \
    do {                                                                                                  \
        if (gt_filter && !strstr(#fn, gt_filter)) break;                                                  \
        gt_case_failed = 0;                                                                               \
        fn();                                                                                             \
        if (gt_case_failed) {                                                                             \
            ++gt_failed;                                                                                  \
            printf("FAIL %s\n", #fn);                                                                     \
        } else {                                                                                          \
            ++gt_passed;                                                                                  \
            printf("ok   %s\n", #fn);                                                                     \
        }                                                                                                 \
        fflush(stdout);                                                                                   \
    } while (0)

#define TEST_INIT(argc, argv) (gt_filter = (argc) > 1 ? (argv)[1] : NULL)

#define TEST_REPORT()                                                                                     \
    (printf("%d passed, %d failed\n", gt_passed, gt_failed), (gt_failed || !gt_passed) ? 1 : 0)

#endif
