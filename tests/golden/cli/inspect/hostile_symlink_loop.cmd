d=$(mktemp -d) && ln -s "$d/b.json" "$d/a.json" && ln -s "$d/a.json" "$d/b.json" && { timeout 60 $GPUPLAN inspect "$d/a.json" 2>&1; echo "exit $?"; } | sed "s|$d|DIR|g"; rm -rf "$d"
