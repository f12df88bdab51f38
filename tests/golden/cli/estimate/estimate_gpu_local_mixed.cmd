cd "$BUILD/stubs" && NVML_STUB_SCENARIO=two GPUPLAN_NVML_LIBRARY=./libnvidia-ml.so.1 GPUPLAN_SYSFS_ROOT=/nonexistent $GPUPLAN estimate llama-3.1-8b --gpu local
