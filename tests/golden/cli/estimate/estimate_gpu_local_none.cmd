GPUPLAN_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 GPUPLAN_SYSFS_ROOT=/nonexistent $GPUPLAN estimate llama-3.1-8b --gpu local
