/*
 * i18n.c - pick the message language and bind the "gpuplan" catalogs.
 *
 * GNU gettext (glibc) chooses the catalog from LANGUAGE, then LC_ALL,
 * LC_MESSAGES, LANG, but ignores LANGUAGE while the LC_MESSAGES locale is
 * plain "C" (glibc intl/dcigettext.c, guess_category_value). So --lang sets
 * LANGUAGE and, when the locale is "C", switches LC_MESSAGES alone to
 * "C.UTF-8", a locale glibc always has (>= 2.35). The same fallback covers a
 * LANG=ru_RU.UTF-8 whose locale is not generated on the machine (common in
 * containers), where setlocale() fails and gettext would stay English.
 *
 * Output is always UTF-8 (bind_textdomain_codeset): LC_CTYPE is left "C" so
 * the library's character tests stay locale-independent. The C library's own
 * messages (strerror, dlerror) come from its "libc" domain, which gettext
 * would otherwise convert to LC_CTYPE's ASCII by transliteration
 * ("nevozmozhno otkry`t`"): that domain is bound to UTF-8 too.
 */
#include "i18n.h"

#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef GPUPLAN_LOCALEDIR
#    define GPUPLAN_LOCALEDIR "/usr/local/share/locale"
#endif

const char cli_i18n_languages[] = "en|ru";

/* The language chosen (cli_i18n_language): a 2-letter code of cli_i18n_languages. */
static char current_language[8] = "en";

/* glibc's message domain (its _libc_intl_domainname). */
#define LIBC_TEXT_DOMAIN "libc"

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* <exe dir>/locale, <exe dir>/../share/locale, else the configured default. */
void cli_i18n_locale_dir(char *out, size_t cap)
{
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    snprintf(out, cap, "%s", GPUPLAN_LOCALEDIR);
    if (n <= 0)
        return;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return;
    *slash = '\0';
    char candidate[PATH_MAX + 32];
    snprintf(candidate, sizeof candidate, "%s/locale", exe);
    if (is_dir(candidate) && strlen(candidate) < cap) {
        snprintf(out, cap, "%s", candidate);
        return;
    }
    snprintf(candidate, sizeof candidate, "%s/../share/locale", exe);
    if (is_dir(candidate) && strlen(candidate) < cap)
        snprintf(out, cap, "%s", candidate);
}

static bool is_known_language(const char *lang)
{
    const size_t n = strlen(lang);
    for (const char *p = cli_i18n_languages; *p;) {
        const char *bar = strchr(p, '|');
        const size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && strncmp(p, lang, n) == 0)
            return true;
        p += len + (bar ? 1 : 0);
    }
    return false;
}

/* The locale name the user asked for, in POSIX precedence; NULL if none. */
static const char *requested_locale(void)
{
    static const char *const vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v)
            return v;
    }
    return NULL;
}

/* Let LANGUAGE take effect even where the messages locale is "C". */
static void leave_c_locale(void)
{
    const char *now = setlocale(LC_MESSAGES, NULL);
    if (!now || strcmp(now, "C") == 0 || strcmp(now, "POSIX") == 0) {
        if (!setlocale(LC_MESSAGES, "C.UTF-8"))
            setlocale(LC_MESSAGES, "C.utf8");
    }
}

static bool is_known_language(const char *lang);

/* Remember `code` ("ru", "ru_RU.UTF-8", "ru:en") as the language when it is a known one. */
static void remember_language(const char *code)
{
    char two[3] = { 0 };
    if (!code || strlen(code) < 2)
        return;
    memcpy(two, code, 2);
    if (is_known_language(two))
        snprintf(current_language, sizeof current_language, "%s", two);
}

int cli_i18n_init(const char *lang)
{
    int rc = 0;
    char dir[PATH_MAX];
    cli_i18n_locale_dir(dir, sizeof dir);
    bindtextdomain(GPUPLAN_TEXT_DOMAIN, dir);
    bind_textdomain_codeset(GPUPLAN_TEXT_DOMAIN, "UTF-8");
    bind_textdomain_codeset(LIBC_TEXT_DOMAIN, "UTF-8");
    textdomain(GPUPLAN_TEXT_DOMAIN);

    if (lang && !is_known_language(lang)) {
        rc = -1;
        lang = "en";
    }
    if (lang) {
        remember_language(lang);
        setenv("LANGUAGE", lang, 1);
        setlocale(LC_MESSAGES, "");
        leave_c_locale();
        return rc;
    }
    if (setlocale(LC_MESSAGES, "")) {
        const char *now = setlocale(LC_MESSAGES, NULL);
        const char *language = getenv("LANGUAGE");
        if (now && strcmp(now, "C") != 0 && strcmp(now, "POSIX") != 0) {
            remember_language(now);
            if (language && *language)
                remember_language(language);
        }
        return 0;
    }
    /* The locale is not installed: take its language ("ru" of "ru_RU.UTF-8"). */
    const char *want = requested_locale();
    if (!want || strcmp(want, "C") == 0 || strcmp(want, "POSIX") == 0)
        return 0;
    const char *language = getenv("LANGUAGE");
    if (!language || !*language) {
        char code[16];
        size_t n = strcspn(want, "_.@");
        if (n >= sizeof code)
            n = sizeof code - 1;
        memcpy(code, want, n);
        code[n] = '\0';
        setenv("LANGUAGE", code, 1);
        remember_language(code);
    } else {
        remember_language(language);
    }
    leave_c_locale();
    return 0;
}

void cli_i18n_english(void)
{
    setlocale(LC_MESSAGES, "C");
    snprintf(current_language, sizeof current_language, "en");
}

const char *cli_i18n_language(void)
{
    return current_language;
}
