/* CPU kernels for the runtime tests, compiled into the kernel image of the
 * artifacts make_artifact.py writes (cc -shared -fPIC -O2). Each follows the
 * CPU calling convention: `void <name>_packed(void **args)`, args[i] being
 * the i-th buffer's address, inputs first, then outputs. Shapes are fixed,
 * as in compiled code: the addrelu family works on 24 float32 (2x3x4). */

#include <stdint.h>

#define N 24

/* relu: y = max(x, 0). */
void relu_0_packed(void **args) {
  const float *x = args[0];
  float *y = args[1];
  for (int i = 0; i < N; ++i)
    y[i] = x[i] > 0 ? x[i] : 0;
}

/* The fused kernel of addrelu: y = relu(x + w). */
void add_relu_0_packed(void **args) {
  const float *x = args[0], *w = args[1];
  float *y = args[2];
  for (int i = 0; i < N; ++i) {
    float t = x[i] + w[i];
    y[i] = t > 0 ? t : 0;
  }
}

/* add_relu_0 done many times over: the slow candidate of the choices
 * model, which a tuner must not pick. */
void add_relu_slow_packed(void **args) {
  for (volatile int r = 0; r < 20000; ++r)
    add_relu_0_packed(args);
}

/* The reference plan of addrelu, one kernel per op: t = x + w, y = relu(t). */
void add_1_packed(void **args) {
  const float *x = args[0], *w = args[1];
  float *t = args[2];
  for (int i = 0; i < N; ++i)
    t[i] = x[i] + w[i];
}

void relu_2_packed(void **args) { relu_0_packed(args); }

/* A wrong reference ReLU, for --check to catch. */
void relu_bad_packed(void **args) {
  const float *x = args[0];
  float *y = args[1];
  for (int i = 0; i < N; ++i)
    y[i] = (x[i] > 0 ? x[i] : 0) + 0.01f;
}

/* multi: s = 2 * a (float32[2,3]); c = b + 1 (int64[3]). */
void scale_0_packed(void **args) {
  const float *a = args[0];
  float *s = args[1];
  for (int i = 0; i < 6; ++i)
    s[i] = 2 * a[i];
}

void inc_1_packed(void **args) {
  const int64_t *b = args[0];
  int64_t *c = args[1];
  for (int i = 0; i < 3; ++i)
    c[i] = b[i] + 1;
}
