d=$(mktemp -d) && mkfifo "$d/model.safetensors" && { timeout 60 $GPUPLAN inspect "$d/model.safetensors" 2>&1; echo "exit $?"; } | sed "s|$d|DIR|g"; rm -rf "$d"
