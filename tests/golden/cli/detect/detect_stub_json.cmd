cd "$BUILD/stubs" && NVML_STUB_SCENARIO=mixed $GPUPLAN detect --format json --nvml-library ./libnvidia-ml-nov2.so.1 --sysfs-root /nonexistent
