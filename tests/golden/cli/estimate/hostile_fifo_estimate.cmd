d=$(mktemp -d) && mkfifo "$d/model.json" && { timeout 60 $GPUPLAN estimate "$d/model.json" 2>&1; echo "exit $?"; } | sed "s|$d|DIR|g"; rm -rf "$d"
