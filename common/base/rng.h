/* rng.h - the one source of randomness: xoshiro256** seeded by splitmix64.
 *
 * Streams are addressed, not consumed: rng_init(&r, seed, a, b) gives a
 * generator that depends only on (seed, a, b), so record k of a generator is
 * rng_init(&r, seed, DOMAIN, k) and does not move when --count changes, and
 * two purposes (say graph structure and capacities) use distinct domains
 * and never share draws.  Output is identical on every platform. */
#ifndef DAR_RNG_H
#define DAR_RNG_H
#include <stdint.h>

struct rng { uint64_t s[4]; };

void rng_init(struct rng *r, uint64_t seed, uint64_t stream_a, uint64_t stream_b);
uint64_t rng_u64(struct rng *r);
/* Uniform double in [0,1) with 53 random bits. */
double rng_uniform(struct rng *r);
/* Uniform float in [0,1) with 24 random bits. */
float rng_uniform_f32(struct rng *r);
/* Uniform integer in [0, n), unbiased (Lemire's method); n > 0. */
uint64_t rng_below(struct rng *r, uint64_t n);
/* Standard normal (Box-Muller, one value per call: deterministic, no cache). */
double rng_normal(struct rng *r);
/* Hash a string into a stream id (FNV-1a then splitmix64), for named domains. */
uint64_t rng_stream_id(const char *name);

#endif
