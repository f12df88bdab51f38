cd "$BUILD/stubs" && NVML_STUB_SCENARIO=h200x8 GPUPLAN_NVML_LIBRARY=./libnvidia-ml.so.1 GPUPLAN_SYSFS_ROOT=/nonexistent $GPUPLAN estimate llama-3.1-70b --method full --sharding fsdp --gpu local
