/*
 * i18n.h - message translation for the gpuplan front-end (GNU gettext, in
 * glibc's libc).
 *
 * Only the CLI translates: the library returns English, and the CLI passes
 * what it prints through _(). Only LC_MESSAGES follows the user's locale;
 * LC_NUMERIC and LC_ALL are never set, so numbers always print with '.'.
 * How to add strings: docs/i18n.md.
 */
#ifndef GPUPLAN_I18N_H
#define GPUPLAN_I18N_H

#include <libintl.h>
#include <stddef.h>

#define GPUPLAN_TEXT_DOMAIN "gpuplan"

/* Translate now. */
#define _(s) gettext(s)
/* Mark for extraction only (table initialisers); translate with _() where printed. */
#define N_(s) s

/*
 * Bind the "gpuplan" text domain and pick the language. `lang` is the
 * --lang value ("en", "ru") or NULL to follow LC_ALL / LC_MESSAGES / LANG
 * (and LANGUAGE). The catalogs are looked up next to the running binary
 * (<exe dir>/locale in a build tree), then in <exe dir>/../share/locale (an
 * installed tree), then in GPUPLAN_LOCALEDIR. Returns 0, or -1 when `lang` is
 * not one of cli_i18n_languages (messages then stay English).
 */
int cli_i18n_init(const char *lang);

/* Where the message catalogs lie: <exe dir>/locale, <exe dir>/../share/locale, else the
 * configured GPUPLAN_LOCALEDIR (what cli_i18n_init binds; the service loads its own from it). */
void cli_i18n_locale_dir(char *out, size_t cap);

/*
 * Stop translating for the rest of the run: LC_MESSAGES back to "C", where
 * gettext (the CLI's and the library's) returns every msgid unchanged. For
 * output that programs read (--format json|csv) and for `gpuplan serve`, so
 * JSON, CSV and HTTP stay English and byte-identical in every language, the
 * error messages included.
 */
void cli_i18n_english(void);

/*
 * The language messages are in after cli_i18n_init: "en" or "ru" (one of
 * cli_i18n_languages), from --lang, else LANGUAGE or the locale; "en" after
 * cli_i18n_english(). For documents that carry a language tag (propose).
 */
const char *cli_i18n_language(void);

/* The accepted --lang values, e.g. "en|ru". */
extern const char cli_i18n_languages[];

#endif
