#ifndef PRESTAGE_CGSL_SHIM_H
#define PRESTAGE_CGSL_SHIM_H

#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sf_gamma.h>

/* Swift 6 rejects references to GSL's mutable global generator-type pointers (`gsl_rng_taus2`
   etc. are `extern const gsl_rng_type *` variables). Reach them through these functions. */
static inline const gsl_rng_type *prestage_rng_type_taus2(void) { return gsl_rng_taus2; }
static inline const gsl_rng_type *prestage_rng_type_mt19937(void) { return gsl_rng_mt19937; }

#endif
