/*
 * server_lang.h - the language of one HTTP answer: a "lang" member of the
 * body, else the Accept-Language header, else English. The text of the
 * answer (reasons, warnings, notes, errors and hints) is then translated
 * through the thread's message catalog (gpuplan/messages.h) while the
 * request is computed; keys and enum values stay English.
 */
#ifndef GPUPLAN_SERVER_LANG_H
#define GPUPLAN_SERVER_LANG_H

#include <stddef.h>
#include <stdio.h>

struct gpuplan_messages;

struct server_langs {
    struct gpuplan_messages *ru; /* NULL: not installed, Russian requests get English */
};

/* Load LOCALE_DIR/ru/LC_MESSAGES/gpuplan.mo; a missing or bad one is one line on `log`. */
void server_langs_load(struct server_langs *langs, const char *locale_dir, FILE *log);
void server_langs_free(struct server_langs *langs);

/* The catalog an Accept-Language value asks for (highest q among en and ru; NULL: English). */
const struct gpuplan_messages *server_lang_from_header(const struct server_langs *langs,
                                                       const char *accept_language);

/* The body's "lang" ("en", "ru") when it has one, else `fallback`. */
const struct gpuplan_messages *server_lang_from_body(const struct server_langs *langs,
                                                     const char *body,
                                                     size_t len,
                                                     const struct gpuplan_messages *fallback);

#endif
