# bench/device_env.sh - sourced (`. bench/device_env.sh`) by the scripts that run on
# the device machine, from the repository root, before any Vulkan program:
# - the Vulkan loader, from the .debs carried in .gl: the image has the NVIDIA
#   driver but no libvulkan;
# - the shared libraries carried in build/bench-libs (libstb, libmeshoptimizer);
# - the image's NVIDIA ICD file, where the loader's usual places have none (the
#   device tool's README: "if no driver is found");
# - GPUSKIN_NO_VALIDATION: test_gpu turns the Khronos validation layer on, and it
#   is not installed there.
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export LD_LIBRARY_PATH="$PWD/build/bench-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
if ! ls /usr/share/vulkan/icd.d/nvidia*.json /etc/vulkan/icd.d/nvidia*.json >/dev/null 2>&1 &&
   [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export GPUSKIN_NO_VALIDATION=1
