# gpuskin build. `make demo` runs the crowd demo; `make test` runs every test.
# Each part of the project adds its programs and test commands in mk/*.mk.
CC      ?= cc
CXX     ?= c++
BUILD   ?= build
WARN    := -Wall -Wextra -Wpedantic -Werror
CFLAGS  ?= -O2 -g
CXXFLAGS ?= -O2 -g
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# Vulkan programs load the driver through volk (Debian: libvulkan-volk-dev).
VOLK_SRC := /usr/include/volk.c
VK_LIBS  := -ldl -lm -lpthread

# Test commands (each a quoted command line) and everything they need built.
TESTS :=
TEST_DEPS :=

.PHONY: all test demo clean shaders check-shaders
all:

include $(sort $(wildcard mk/*.mk))

test: $(TEST_DEPS)
	@bash tests/run_all.sh $(TESTS)

clean:
	rm -rf $(BUILD)

$(BUILD):
	mkdir -p $(BUILD)
