/*
 * mhd.h - libmicrohttpd, loaded when `gpuplan serve` starts rather than
 * linked: linking it loads GnuTLS and nine more libraries into every
 * process, which cost an empty program 3.2 ms of CPU at start-up on the
 * 2-core machine of issue 19 (every `gpuplan estimate` paid it). The
 * server's files include this header instead of <microhttpd.h>; the MHD_*
 * functions they call are the pointers server_mhd_load() fills, with the
 * same names and types (macros below), so the code reads as before.
 */
#ifndef GPUPLAN_SERVER_MHD_H
#define GPUPLAN_SERVER_MHD_H

#include <microhttpd.h>

#include "gpuplan/error.h"

/* The library's soname (Debian package libmicrohttpd12; 12 since libmicrohttpd 0.9.21). */
#define SERVER_MHD_SONAME "libmicrohttpd.so.12"

struct server_mhd {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_quiesce_daemon) *quiesce_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_get_connection_info) *get_connection_info;
    __typeof__(MHD_get_connection_values) *get_connection_values;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_suspend_connection) *suspend_connection;
    __typeof__(MHD_resume_connection) *resume_connection;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_create_response_from_buffer_with_free_callback)
        *create_response_from_buffer_with_free_callback;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_destroy_response) *destroy_response;
};
extern struct server_mhd server_mhd;

/*
 * dlopen() SERVER_MHD_SONAME and look up every function above, once (later
 * calls return the first outcome). Errors: GPUPLAN_ERR_IO with the
 * loader's reason and a hint to install the package.
 */
enum gpuplan_status server_mhd_load(struct gpuplan_error *err);

#define MHD_start_daemon            server_mhd.start_daemon
#define MHD_stop_daemon             server_mhd.stop_daemon
#define MHD_quiesce_daemon          server_mhd.quiesce_daemon
#define MHD_get_daemon_info         server_mhd.get_daemon_info
#define MHD_get_connection_info     server_mhd.get_connection_info
#define MHD_get_connection_values   server_mhd.get_connection_values
#define MHD_lookup_connection_value server_mhd.lookup_connection_value
#define MHD_suspend_connection      server_mhd.suspend_connection
#define MHD_resume_connection       server_mhd.resume_connection
#define MHD_queue_response          server_mhd.queue_response
#define MHD_create_response_from_buffer_with_free_callback \
    server_mhd.create_response_from_buffer_with_free_callback
#define MHD_add_response_header server_mhd.add_response_header
#define MHD_destroy_response    server_mhd.destroy_response

#endif
