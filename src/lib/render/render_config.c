/*
 * render_config.c - what a config file told gpuplan, beside the estimate or
 * the plan computed from it: the keys it did not understand, the settings
 * taken from the framework's defaults and what it could not express (text),
 * or every note (JSON "config"); and `gpuplan check`'s changes in the file's
 * own vocabulary (gpuplan_config_spell_change).
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "gpuplan/config.h"
#include "gpuplan/estimate.h"
#include "gpuplan/render.h"
#include "gpuplan/units.h"
#include "render/render_internal.h"

#include "util/i18n_internal.h"

json_t *gpuplan_config_json(const struct gpuplan_config *cfg)
{
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(gpuplan_config_kind_name(cfg->kind)));
    json_object_set_new(o, "stack", json_string(gpuplan_config_stack_name(cfg->stack)));
    json_object_set_new(o, "files", json_integer((json_int_t)cfg->n_files));
    json_object_set_new(o, "model", json_string(cfg->model_id));
    json_t *notes = json_array();
    for (size_t i = 0; i < cfg->n_notes; i++) {
        const struct gpuplan_config_note *n = &cfg->notes[i];
        json_t *j = json_object();
        json_object_set_new(j, "kind", json_string(gpuplan_config_note_kind_name(n->kind)));
        json_object_set_new(j, "key", json_string(n->key));
        json_object_set_new(j, "where", json_string(n->where));
        json_object_set_new(j, "setting", json_string(n->setting));
        json_object_set_new(j, "value", json_string(n->value));
        json_object_set_new(j, "detail", json_string(n->detail));
        json_array_append_new(notes, j);
    }
    json_object_set_new(o, "notes", notes);
    json_object_set_new(o, "notes_dropped", json_integer((json_int_t)cfg->n_notes_dropped));
    return o;
}

static void notes_of_kind(const struct gpuplan_config *cfg,
                          enum gpuplan_config_note_kind kind,
                          const char *title,
                          struct gpuplan_buf *out)
{
    if (gpuplan_config_count_notes(cfg, kind) == 0)
        return;
    gpuplan_buf_printf(out, "  %s:\n", title);
    for (size_t i = 0; i < cfg->n_notes; i++) {
        const struct gpuplan_config_note *n = &cfg->notes[i];
        if (n->kind != kind)
            continue;
        if (kind == GPUPLAN_CONFIG_NOTE_DEFAULT)
            gpuplan_buf_printf(out, "    %s = %s  (%s; %s)\n", n->setting, n->value, n->key,
                               n->detail);
        else
            gpuplan_buf_printf(out, "    %-36s %s%s%s\n", n->key, n->where,
                               n->detail[0] ? "  " : "", n->detail);
    }
}

void gpuplan_config_text(const struct gpuplan_config *cfg, struct gpuplan_buf *out)
{
    gpuplan_buf_printf(out, GPUPLAN_TR("\nfrom %zu %s file%s (defaults of %s)%s%s:\n"),
                       cfg->n_files, gpuplan_config_kind_name(cfg->kind),
                       cfg->n_files == 1 ? "" : "s", gpuplan_config_stack_name(cfg->stack),
                       cfg->model_id[0] ? ", model " : "", cfg->model_id);
    notes_of_kind(cfg, GPUPLAN_CONFIG_NOTE_UNKNOWN,
                  GPUPLAN_TR("keys not understood (not documented by the engine)"), out);
    notes_of_kind(cfg, GPUPLAN_CONFIG_NOTE_NOT_EXPRESSIBLE,
                  GPUPLAN_TR("settings gpuplan cannot express (the nearest is used)"), out);
    notes_of_kind(cfg, GPUPLAN_CONFIG_NOTE_DEFAULT,
                  GPUPLAN_TR("taken from the framework's defaults"), out);
    if (cfg->n_notes_dropped)
        gpuplan_buf_printf(out, GPUPLAN_TR("  (%zu more notes not kept)\n"), cfg->n_notes_dropped);
}

json_t *gpuplan_check_changes_json(const struct gpuplan_estimate *est,
                                   const struct gpuplan_config *cfg)
{
    json_t *a = json_array();
    const struct gpuplan_memory_report *r = &est->memory;
    for (size_t i = 0; i < r->n_suggestions; i++) {
        char text[512];
        const bool in_file =
            gpuplan_config_spell_change(cfg->kind, r->suggestions[i].change, text, sizeof text);
        json_t *c = json_object();
        json_object_set_new(c, "option", json_string(r->suggestions[i].change));
        json_object_set_new(c, "change", json_string(text));
        json_object_set_new(c, "in_file", json_boolean(in_file));
        json_object_set_new(c, "saving_bytes", json_integer(r->suggestions[i].saving_bytes));
        json_object_set_new(c, "fits", json_boolean(r->suggestions[i].fits));
        json_array_append_new(a, c);
    }
    return a;
}

void gpuplan_check_changes_text(const struct gpuplan_estimate *est,
                                const struct gpuplan_config *cfg,
                                struct gpuplan_buf *out)
{
    const struct gpuplan_memory_report *r = &est->memory;
    if (!est->has_gpu || r->est.fits || r->n_suggestions == 0)
        return;
    gpuplan_buf_printf(out, GPUPLAN_TR("\nto fit, change in the %s file:\n"),
                       gpuplan_config_kind_name(cfg->kind));
    for (size_t i = 0; i < r->n_suggestions; i++) {
        char text[512];
        (void)gpuplan_config_spell_change(cfg->kind, r->suggestions[i].change, text, sizeof text);
        gpuplan_buf_printf(out, "  %-58s %+.1f GiB%s\n", text,
                           -gpuplan_gib_from_bytes(r->suggestions[i].saving_bytes > 0
                                                       ? (uint64_t)r->suggestions[i].saving_bytes
                                                       : 0),
                           r->suggestions[i].fits ? GPUPLAN_TR(" (fits)") : "");
    }
}
