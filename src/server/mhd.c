/*
 * mhd.c - libmicrohttpd's functions looked up with dlopen()/dlsym() when
 * the server starts (mhd.h says why).
 */
#include "mhd.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct server_mhd server_mhd;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256]; /* "" when loaded */

/* Resolve `name` into `slot` (a function pointer's storage); false when missing. */
static bool resolve(void *lib, const char *name, void *slot, size_t slot_size)
{
    void *sym = dlsym(lib, name);
    if (!sym) {
        const char *why = dlerror();
        (void)snprintf(load_error, sizeof load_error, "%s", why ? why : name);
        return false;
    }
    memcpy(slot, &sym, slot_size); /* POSIX: a dlsym() result converts to a function pointer */
    return true;
}

#define RESOLVE(lib, field) resolve(lib, "MHD_" #field, &server_mhd.field, sizeof server_mhd.field)

static void load(void)
{
    (void)dlerror();
    void *lib = dlopen(SERVER_MHD_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char *why = dlerror();
        (void)snprintf(load_error, sizeof load_error, "%s", why ? why : SERVER_MHD_SONAME);
        return;
    }
    if (!(RESOLVE(lib, start_daemon) && RESOLVE(lib, stop_daemon) && RESOLVE(lib, quiesce_daemon) &&
          RESOLVE(lib, get_daemon_info) && RESOLVE(lib, get_connection_info) &&
          RESOLVE(lib, get_connection_values) && RESOLVE(lib, lookup_connection_value) &&
          RESOLVE(lib, suspend_connection) && RESOLVE(lib, resume_connection) &&
          RESOLVE(lib, queue_response) &&
          RESOLVE(lib, create_response_from_buffer_with_free_callback) &&
          RESOLVE(lib, add_response_header) && RESOLVE(lib, destroy_response))) {
        memset(&server_mhd, 0, sizeof server_mhd);
        return; /* the library stays loaded: a process that cannot serve exits anyway */
    }
    load_error[0] = '\0';
}

enum gpuplan_status server_mhd_load(struct gpuplan_error *err)
{
    (void)pthread_once(&load_once, load);
    if (!load_error[0] && server_mhd.start_daemon)
        return GPUPLAN_OK;
    gpuplan_error_set(err, GPUPLAN_ERR_IO, SERVER_MHD_SONAME, "cannot load %s: %s",
                      SERVER_MHD_SONAME, load_error);
    gpuplan_error_hint(err, "install libmicrohttpd (Debian: apt-get install libmicrohttpd12)");
    return GPUPLAN_ERR_IO;
}
