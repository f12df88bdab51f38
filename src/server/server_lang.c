/*
 * server_lang.c - picks the language of an answer (server_lang.h).
 */
#include "server_lang.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gpuplan/error.h"
#include "gpuplan/messages.h"

#define MO_PATH_MAX 4096
/* RFC 9110 12.5.4: q is 0..1 with at most three decimals; absent means 1. */
#define Q_DEFAULT 1.0

void server_langs_load(struct server_langs *langs, const char *locale_dir, FILE *log)
{
    langs->ru = NULL;
    if (!locale_dir)
        return;
    char path[MO_PATH_MAX];
    snprintf(path, sizeof path, "%s/ru/LC_MESSAGES/gpuplan.mo", locale_dir);
    struct gpuplan_error err;
    gpuplan_error_init(&err);
    if (gpuplan_messages_load(path, &langs->ru, &err) != GPUPLAN_OK)
        fprintf(log, "gpuplan: no Russian messages (%s: %s); answers are in English\n",
                err.where[0] ? err.where : path, err.message);
}

void server_langs_free(struct server_langs *langs)
{
    gpuplan_messages_free(langs->ru);
    langs->ru = NULL;
}

/* The primary subtag of a language range ("ru" of "ru-RU"), compared case-insensitively. */
static int range_is(const char *range, size_t n, const char *lang)
{
    const size_t k = strlen(lang);
    return n >= k && strncasecmp(range, lang, k) == 0 && (n == k || range[k] == '-');
}

const struct gpuplan_messages *server_lang_from_header(const struct server_langs *langs,
                                                       const char *accept_language)
{
    if (!accept_language || !langs->ru)
        return NULL;
    double best_q = 0.0;
    const struct gpuplan_messages *best = NULL;
    const char *p = accept_language;
    while (*p) {
        const size_t item = strcspn(p, ",");
        const size_t range = strcspn(p, ",;");
        size_t start = 0;
        while (start < range && (p[start] == ' ' || p[start] == '\t'))
            start++;
        size_t end = range;
        while (end > start && (p[end - 1] == ' ' || p[end - 1] == '\t'))
            end--;
        double q = Q_DEFAULT;
        const char *qs = range < item ? p + range : NULL;
        while (qs && qs < p + item) {
            qs = strchr(qs, ';');
            if (!qs || qs >= p + item)
                break;
            qs++;
            while (*qs == ' ')
                qs++;
            if ((qs[0] == 'q' || qs[0] == 'Q') && qs[1] == '=')
                q = strtod(qs + 2, NULL);
        }
        const int is_ru = range_is(p + start, end - start, "ru");
        const int is_en = range_is(p + start, end - start, "en");
        if ((is_ru || is_en) && q > best_q) {
            best_q = q;
            best = is_ru ? langs->ru : NULL;
        }
        p += item;
        if (*p == ',')
            p++;
    }
    return best;
}

const struct gpuplan_messages *server_lang_from_body(const struct server_langs *langs,
                                                     const char *body,
                                                     size_t len,
                                                     const struct gpuplan_messages *fallback)
{
    static const char key[] = "\"lang\"";
    if (!body || !memmem(body, len, key, sizeof key - 1))
        return fallback; /* the common case: no second parse */
    json_t *root = json_loadb(body, len, 0, NULL);
    const json_t *v = json_is_object(root) ? json_object_get(root, "lang") : NULL;
    const struct gpuplan_messages *m = fallback;
    if (json_is_string(v) && strcmp(json_string_value(v), "ru") == 0)
        m = langs->ru;
    else if (json_is_string(v) && strcmp(json_string_value(v), "en") == 0)
        m = NULL;
    json_decref(root); /* a malformed body: the request reader reports it */
    return m;
}
