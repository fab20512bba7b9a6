#ifndef PRESTAGE_CZLIB_SHIM_H
#define PRESTAGE_CZLIB_SHIM_H

/* zlib (Debian zlib1g-dev), reached only by LogFit's line reader: gzopen/gzread read gzip and
   plain files alike. */
#include <zlib.h>

#endif
