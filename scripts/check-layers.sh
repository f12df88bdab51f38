#!/bin/sh
# check-layers.sh - every #include points down the layers of
# docs/architecture.md, never up, and the front-ends reach the library only
# through its public API (include/gpuplan/). Run by `make lint` and, as the
# suite tests/suites/source_rules.sh, by `make check`.
#
# Layers, bottom-up (a file may include headers of its own layer or below):
#   1 util  2 model  3 formats  4 catalog  5 estimate  6 config  7 plan
#   8 render  9 api  10 the front-ends: src/server (the HTTP service), then src/cli (the binary's
#     commands, which may include the server's interface, server.h)
# A private header src/lib/LAYER/*_internal.h has its folder's layer. A public
# header include/gpuplan/NAME.h has the layer of the types it defines, listed
# below; a new public header must be added here. (model.h is the tensor
# inventory the readers of formats/ fill; it also declares those readers and
# gpuplan_model_load, implemented above it, as the model's public façade.)
# Front-ends may include public headers and their own folder's headers only
# (no "../", no src/lib path, no *_internal.h).
# Prints one line per offending include and exits 1 when there is any.
set -u
cd "$(dirname "$0")/.." || exit 1

public_layer() { # NAME.h -> layer number, or "" when unknown
    case $1 in
    error.h | buf.h | units.h | dtype.h | options.h | messages.h) echo 1 ;;
    model.h) echo 2 ;;
    catalog.h | detect.h) echo 4 ;;
    job.h | estimate.h | throughput.h | cost.h | serving.h) echo 5 ;;
    config.h) echo 6 ;;
    plan.h) echo 7 ;;
    render.h) echo 8 ;;
    request.h | gpuplan.h) echo 9 ;;
    *) echo "" ;;
    esac
}
folder_layer() { # util|formats|... -> layer number, or ""
    case $1 in
    util) echo 1 ;; model) echo 2 ;; formats) echo 3 ;; catalog) echo 4 ;;
    estimate) echo 5 ;; config) echo 6 ;; plan) echo 7 ;; render) echo 8 ;;
    api) echo 9 ;;
    *) echo "" ;;
    esac
}

# includes FILE: the quoted includes of FILE, one "LINE HEADER" per line.
includes() {
    awk '/^[[:space:]]*#[[:space:]]*include[[:space:]]*"/ {
        h = $0; sub(/^[^"]*"/, "", h); sub(/".*$/, "", h); print NR, h }' "$1"
}

# header_layer HEADER: the layer of a library header as it is spelled in an include.
header_layer() {
    case $1 in
    gpuplan/*.h) public_layer "${1#gpuplan/}" ;;
    */*_internal.h) folder_layer "${1%%/*}" ;;
    *) echo "" ;;
    esac
}

check_library_file() { # FILE LAYER
    includes "$1" | while read -r line header; do
        hl=$(header_layer "$header")
        if [ -z "$hl" ]; then
            case $header in
            gpuplan/*) echo "layers: $1:$line: '$header' has no layer (add it to scripts/check-layers.sh)" ;;
            *) echo "layers: $1:$line: '$header' is neither public (gpuplan/NAME.h) nor LAYER/NAME_internal.h" ;;
            esac
        elif [ "$hl" -gt "$2" ]; then
            echo "layers: $1:$line: includes '$header' (layer $hl) from layer $2: points up"
        fi
    done
}

check_frontend_file() { # FILE FOLDER
    includes "$1" | while read -r line header; do
        case $header in
        gpuplan/*.h)
            [ -n "$(public_layer "${header#gpuplan/}")" ] ||
                echo "layers: $1:$line: '$header' has no layer (add it to scripts/check-layers.sh)"
            ;;
        *../* | */* | *_internal.h)
            echo "layers: $1:$line: a front-end includes '$header': use the public API (include/gpuplan/)"
            ;;
        server.h)
            [ "$2" = cli ] || [ "$2" = server ] ||
                echo "layers: $1:$line: '$header' is the server's interface"
            ;;
        *)
            [ -f "src/$2/$header" ] ||
                echo "layers: $1:$line: '$header' is not a header of src/$2 (front-ends include their own headers and the public API)"
            ;;
        esac
    done
}

report=$(
    for f in include/gpuplan/*.h; do
        check_library_file "$f" "$(public_layer "$(basename "$f")")"
        [ -n "$(public_layer "$(basename "$f")")" ] ||
            echo "layers: $f: public header without a layer (add it to scripts/check-layers.sh)"
    done
    for dir in src/lib/*/; do
        folder=$(basename "$dir")
        layer=$(folder_layer "$folder")
        if [ -z "$layer" ]; then
            echo "layers: $dir is not a layer of docs/architecture.md"
            continue
        fi
        for f in "$dir"*.c "$dir"*.h; do
            [ -e "$f" ] || continue
            check_library_file "$f" "$layer"
        done
    done
    for f in src/lib/*.c src/lib/*.h; do
        [ -e "$f" ] && echo "layers: $f sits outside the layer folders"
    done
    for folder in server cli; do
        for f in src/$folder/*.c src/$folder/*.h; do
            [ -e "$f" ] || continue
            check_frontend_file "$f" "$folder"
        done
    done
    # The server sits below the CLI: it must not include the CLI's headers.
    for f in src/server/*.c src/server/*.h; do
        [ -e "$f" ] || continue
        includes "$f" | while read -r line header; do
            [ -f "src/cli/$header" ] && [ ! -f "src/server/$header" ] &&
                echo "layers: $f:$line: the server includes the CLI's '$header': points up"
        done
    done
)
if [ -n "$report" ]; then
    echo "$report"
    n=$(echo "$report" | wc -l)
    echo "layers: $n include(s) break the layer rules (docs/architecture.md, \"Layers\")"
    exit 1
fi
echo "layers: every include points down a layer or stays in it"
exit 0
