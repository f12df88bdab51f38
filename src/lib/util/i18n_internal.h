/*
 * i18n_internal.h - message translation inside the library (GNU gettext,
 * text domain "gpuplan", the same catalog as the front-end's).
 *
 * GPUPLAN_TR(msgid) is dgettext("gpuplan", msgid). glibc's dgettext is
 * thread-safe, reads no environment of its own accord, and returns msgid
 * unchanged unless the program called setlocale(LC_MESSAGES, ...) and
 * bindtextdomain(): the HTTP service never does, so its JSON and HTML stay
 * English and byte-identical; the CLI does for text output only
 * (docs/i18n.md).
 *
 * Rules:
 * - Translate the printf FORMAT, never the formatted result:
 *   gpuplan_buf_printf(out, GPUPLAN_TR("short by %.2f GiB\n"), gib).
 * - Translate only on text paths (tables, verdicts, headings). JSON and CSV
 *   renderers use the untranslated msgid: keys and values stay English.
 * - Static tables mark their strings with GPUPLAN_N_() and translate where
 *   printed: GPUPLAN_TR(table[i].label).
 * - gpuplan_error_set() and gpuplan_error_hint() translate their format
 *   themselves (xgettext keywords in the Makefile), so error call sites need
 *   no marker; helpers that format a message before passing it on with "%s"
 *   translate their own format.
 */
#ifndef GPUPLAN_I18N_INTERNAL_H
#define GPUPLAN_I18N_INTERNAL_H

#include <libintl.h>

#include "gpuplan/messages.h"

#define GPUPLAN_TR_DOMAIN "gpuplan"

static inline const char *gpuplan_tr(const char *msgid) __attribute__((format_arg(1)));

/*
 * dgettext("gpuplan", msgid), except that "" stays "" (gettext maps the empty
 * msgid to the catalog's header); from the thread's own catalog when one is
 * in use (the HTTP service's per-request language, gpuplan/messages.h). format_arg keeps -Wformat
 * checking the arguments against the English format.
 */
/* The calling thread's catalog (gpuplan_messages_use, messages.c); NULL: gettext's. */
extern _Thread_local const struct gpuplan_messages *gpuplan_messages_current;

static inline const char *gpuplan_tr(const char *msgid)
{
    if (gpuplan_messages_current)
        return gpuplan_messages_lookup(gpuplan_messages_current, msgid);
    return msgid[0] ? dgettext(GPUPLAN_TR_DOMAIN, msgid) : msgid;
}

/*
 * printf pads "%-*s" by bytes; a translated label in UTF-8 takes more bytes
 * than columns. The field width that pads `text` to `columns` columns
 * (one column per code point: no wide characters in the catalogs).
 */
static inline int gpuplan_tr_width(const char *text, int columns)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        if ((*p & 0xC0) == 0x80)
            columns++;
    return columns;
}

/* Translate now (a format keeps its conversions; msgfmt -c checks them). */
#define GPUPLAN_TR(msgid) gpuplan_tr(msgid)
/* Mark for extraction only (static tables); translate with GPUPLAN_TR() where printed. */
#define GPUPLAN_N_(s) s

#endif
