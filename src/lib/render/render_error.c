/*
 * render_error.c - the JSON error document of a failed request
 * ({"error":{"code","message","hint","where"}}; see render.h).
 *
 * Written by hand rather than through jansson so that a message cut inside
 * a UTF-8 sequence (error texts are bounded by snprintf) still gives valid
 * JSON: such bytes become U+FFFD.
 */
#include <string.h>

#include "gpuplan/render.h"
#include "util/utf8_internal.h"

/*
 * Append `text` as a JSON string. Messages are truncated by snprintf and may
 * end inside a UTF-8 sequence, so invalid bytes become U+FFFD.
 */
static void append_json_string(struct gpuplan_buf *buf, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t n = strlen(text);
    gpuplan_buf_puts(buf, "\"");
    while (n > 0) {
        const unsigned char ch = s[0];
        size_t step = 1;
        if (ch == '"' || ch == '\\') {
            gpuplan_buf_printf(buf, "\\%c", ch);
        } else if (ch == '\n') {
            gpuplan_buf_puts(buf, "\\n");
        } else if (ch == '\t') {
            gpuplan_buf_puts(buf, "\\t");
        } else if (ch < 0x20 || ch == 0x7f) {
            gpuplan_buf_printf(buf, "\\u%04x", ch);
        } else {
            step = gpuplan_utf8_sequence_len(s, n);
            if (step == 0) {
                gpuplan_buf_puts(buf, "\\ufffd");
                step = 1;
            } else {
                gpuplan_buf_append(buf, s, step);
            }
        }
        s += step;
        n -= step;
    }
    gpuplan_buf_puts(buf, "\"");
}

void gpuplan_render_error_json(const struct gpuplan_error *err, struct gpuplan_buf *buf)
{
    gpuplan_buf_puts(buf, "{\"error\":{\"code\":");
    append_json_string(buf, gpuplan_status_name(err->code));
    gpuplan_buf_puts(buf, ",\"message\":");
    append_json_string(buf, err->message);
    gpuplan_buf_puts(buf, ",\"hint\":");
    append_json_string(buf, err->hint);
    gpuplan_buf_puts(buf, ",\"where\":");
    append_json_string(buf, err->where);
    gpuplan_buf_puts(buf, "}}\n");
}
