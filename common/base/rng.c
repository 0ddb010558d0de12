/* rng.c - xoshiro256** (Blackman & Vigna) seeded through splitmix64.
 *
 * A generator is addressed by (seed, stream_a, stream_b): the three words
 * are mixed by splitmix64 into the 256-bit state, so distinct addresses give
 * statistically independent streams and no generator depends on how many
 * draws another one made. */
#include "rng.h"
#include <math.h>
#include <string.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rng_init(struct rng *r, uint64_t seed, uint64_t stream_a, uint64_t stream_b)
{
    /* Chain the words through splitmix64 so (a,b) and (b,a) differ. */
    uint64_t x = seed;
    uint64_t h = splitmix64(&x);
    x = h ^ stream_a;
    h = splitmix64(&x);
    x = h ^ stream_b;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
    if (!(r->s[0] | r->s[1] | r->s[2] | r->s[3]))
        r->s[0] = 1;   /* the all-zero state is the one xoshiro cannot leave */
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rng_u64(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rng_uniform(struct rng *r)
{
    return (double)(rng_u64(r) >> 11) * 0x1.0p-53;
}

float rng_uniform_f32(struct rng *r)
{
    return (float)(rng_u64(r) >> 40) * 0x1.0p-24f;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
    /* Lemire's multiply-shift with rejection of the biased low range. */
    unsigned __int128 m = (unsigned __int128)rng_u64(r) * n;
    uint64_t low = (uint64_t)m;
    if (low < n) {
        uint64_t threshold = -n % n;
        while (low < threshold) {
            m = (unsigned __int128)rng_u64(r) * n;
            low = (uint64_t)m;
        }
    }
    return (uint64_t)(m >> 64);
}

double rng_normal(struct rng *r)
{
    double u1 = 1.0 - rng_uniform(r);   /* (0,1]: log is finite */
    double u2 = rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t rng_stream_id(const char *name)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return splitmix64(&h);
}
