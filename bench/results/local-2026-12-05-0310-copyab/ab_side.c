/* one side of the A/B: gpuskin's implementation, static, behind one wrapper */
#define GPUSKIN_STATIC
#define GPUSKIN_NO_VULKAN
#define GPUSKIN_IMPLEMENTATION
#include "gpuskin.h"
int SIDE(const gpuskin_cpu_skin_desc *d) { return (int)gpuskin_skin_cpu_fast(d); }
