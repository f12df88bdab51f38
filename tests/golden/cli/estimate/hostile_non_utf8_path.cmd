{ $GPUPLAN estimate "$(printf 'model-\377\376.json')" 2>&1; echo "exit $?"; } | od -An -c
