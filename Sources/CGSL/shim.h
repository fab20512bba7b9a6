#ifndef PRESTAGE_CGSL_SHIM_H
#define PRESTAGE_CGSL_SHIM_H

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_sf_erf.h>

/* Swift 6 rejects references to GSL's mutable global generator-type pointers (`gsl_rng_taus2`
   etc. are `extern const gsl_rng_type *` variables). Reach them through these functions. */
static inline const gsl_rng_type *prestage_rng_type_taus2(void) { return gsl_rng_taus2; }
static inline const gsl_rng_type *prestage_rng_type_mt19937(void) { return gsl_rng_mt19937; }
/* The same for the Nelder-Mead minimiser type used by Stochastic's maximum-likelihood fits. */
static inline const gsl_multimin_fminimizer_type *prestage_multimin_nmsimplex2(void) { return gsl_multimin_fminimizer_nmsimplex2; }

/* taus2's state (GSL's `taus_state_t`: three `unsigned long`s) set to (s1, s2, s3), each word
   raised to taus2's minimum (s1 >= 2, s2 >= 8, s3 >= 16) as GSL's `taus2_set` does. GSL's
   `taus2_set` then runs six warm-up steps because its three words come from a 32-bit seed through
   an LCG; the callers here pass words from SplitMix64's finaliser, already unrelated, so there is
   no warm-up (it was most of the cost of a re-seed, done per device and per request). Written
   here rather than through `gsl_rng_set`, which keeps only 32 seed bits. The state is checked
   against GSL's own generator in RandomStreamTests. */
static inline void prestage_taus2_set_state(gsl_rng *r, unsigned long s1, unsigned long s2, unsigned long s3) {
    unsigned long *state = (unsigned long *)r->state;
    state[0] = s1 < 2 ? s1 + 2 : s1;
    state[1] = s2 < 8 ? s2 + 8 : s2;
    state[2] = s3 < 16 ? s3 + 16 : s3;
}

#endif
