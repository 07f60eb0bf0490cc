/* Index checks through the C API, on the artifact's target: a run with an
 * index out of range fails (fuse_model_run); an async run's check is read
 * by fuse_model_get_output or by the next run, which waits for it; and
 * what reading the checks adds to a synchronous run, against the same
 * model compiled with --no-index-checks.
 *
 *   cc -O2 index_checks.c -I runtime/include -L DIR -lfuse_runtime \
 *      -o index_checks
 *   index_checks CHECKED.fbin UNCHECKED.fbin ROWS
 *
 * Both artifacts: one int64 input of indices into ROWS rows. Prints one
 * line per case and "index checks: PASS" or "FAIL". */

#include "fuse/runtime.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int failures = 0;

static void expect(int ok, const char *what) {
  printf("%s: %s\n", ok ? "ok" : "FAIL", what);
  if (!ok)
    failures++;
}

static double nowMs(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of `runs` synchronous runs, in microseconds. */
static double medianRunUs(fuse_model *model, int runs) {
  double *times = malloc(sizeof(double) * runs);
  for (int i = 0; i < 20; ++i)
    fuse_model_run(model, 0);
  for (int i = 0; i < runs; ++i) {
    double start = nowMs();
    if (fuse_model_run(model, 0) != FUSE_OK) {
      printf("run failed: %s\n", fuse_last_error());
      exit(1);
    }
    times[i] = (nowMs() - start) * 1e3;
  }
  qsort(times, runs, sizeof(double), compare);
  double median = times[runs / 2];
  free(times);
  return median;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: index_checks CHECKED.fbin UNCHECKED.fbin ROWS\n");
    return 2;
  }
  int64_t rows = atoll(argv[3]);
  fuse_model *checked = NULL, *unchecked = NULL;
  if (fuse_model_load(argv[1], &checked) != FUSE_OK ||
      fuse_model_load(argv[2], &unchecked) != FUSE_OK) {
    printf("load failed: %s\n", fuse_last_error());
    return 1;
  }
  fuse_tensor_info input, output;
  fuse_model_input_info(checked, 0, &input);
  fuse_model_output_info(checked, 0, &output);
  size_t n = input.bytes / sizeof(int64_t);
  int64_t *good = calloc(n, sizeof(int64_t)), *bad = calloc(n, sizeof(int64_t));
  for (size_t i = 0; i < n; ++i)
    good[i] = bad[i] = (int64_t)(i % rows) - (i % 2 ? rows : 0);
  bad[n / 2] = rows + 7;
  void *out = malloc(output.bytes);
  printf("checks in plan 0: %zu\n", fuse_model_plan_num_checks(checked, 0));

  fuse_model_set_input(checked, 0, good, input.bytes);
  expect(fuse_model_run(checked, 0) == FUSE_OK, "run, indices in range");
  fuse_model_set_input(checked, 0, bad, input.bytes);
  fuse_status s = fuse_model_run(checked, 0);
  printf("  %s\n", fuse_last_error());
  expect(s == FUSE_ERROR_ARGUMENT &&
             strstr(fuse_last_error(), "is out of range"),
         "run, one index out of range");

  /* Async: get_output reads the check. */
  expect(fuse_model_run_async(checked, 0, NULL) == FUSE_OK,
         "run_async returns before the check");
  s = fuse_model_get_output(checked, 0, out, output.bytes);
  expect(s == FUSE_ERROR_ARGUMENT &&
             strstr(fuse_last_error(), "is out of range"),
         "get_output after an async run out of range");
  /* Async: the next run reads it (waiting for the run), whether or not it
   * has finished. */
  expect(fuse_model_run_async(checked, 0, NULL) == FUSE_OK, "run_async again");
  usleep(200000);
  s = fuse_model_run_async(checked, 0, NULL);
  expect(s == FUSE_ERROR_ARGUMENT &&
             strstr(fuse_last_error(), "is out of range"),
         "the next run_async reports the finished one");
  expect(fuse_model_run_async(checked, 0, NULL) == FUSE_OK,
         "run_async, then at once");
  s = fuse_model_run_async(checked, 0, NULL);
  expect(s == FUSE_ERROR_ARGUMENT &&
             strstr(fuse_last_error(), "is out of range"),
         "the next run_async reports the one in flight");
  fuse_model_set_input(checked, 0, good, input.bytes);
  expect(fuse_model_run_async(checked, 0, NULL) == FUSE_OK &&
             fuse_model_get_output(checked, 0, out, output.bytes) == FUSE_OK,
         "async, indices in range");

  /* Unchecked: clamped, no error. */
  fuse_model_set_input(unchecked, 0, bad, input.bytes);
  expect(fuse_model_run(unchecked, 0) == FUSE_OK,
         "--no-index-checks: out of range, clamped");

  fuse_model_set_input(unchecked, 0, good, input.bytes);
  double withChecks = medianRunUs(checked, 2000);
  double without = medianRunUs(unchecked, 2000);
  printf("fuse_model_run median: %.1f us with the check, %.1f us without "
         "(+%.1f us)\n",
         withChecks, without, withChecks - without);
  fuse_model_free(checked);
  fuse_model_free(unchecked);
  printf("index checks: %s\n", failures ? "FAIL" : "PASS");
  return failures != 0;
}
