#!/usr/bin/env bash
# Installs everything gpuskin's build, tests, examples and tools need on Debian 12
# or Ubuntu 22.04+. Run as root (or through sudo). Vulkan runs on Mesa's lavapipe
# when there is no GPU; the Khronos validation layer checks every test.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y --no-install-recommends \
    build-essential clang make ca-certificates \
    libvulkan-dev libvulkan-volk-dev mesa-vulkan-drivers vulkan-validationlayers \
    glslang-tools spirv-tools \
    libtinygltf-dev nlohmann-json3-dev libstb-dev libmeshoptimizer-dev
