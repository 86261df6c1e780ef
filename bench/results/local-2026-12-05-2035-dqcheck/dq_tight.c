/* A tight-loop driver: gpuskin_pack_dq_fast (Gram-Schmidt) over N instances of 64 joints,
   palettes from random TRS with non-uniform scale; 15 timings of max(3, 2e6 / (64 N)) passes;
   prints a hash of the output (to compare forms bit for bit) and min / median ns/joint.
   Build: gcc -O2 -I<folder with gpuskin.h> dq_tight.c -o NAME -lm; run: ./NAME N. */
#define _POSIX_C_SOURCE 200809L
#define GPUSKIN_NO_VULKAN
#define GPUSKIN_IMPLEMENTATION
#include "gpuskin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#define J 64
static unsigned s = 4321u;
static float rnd(float a, float b) { s = s * 1664525u + 1013904223u; return a + (b - a) * ((s >> 8) / 16777216.0f); }
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  uint32_t n = argc>1?(uint32_t)atoi(argv[1]):1, i; int r; size_t k;
  gpuskin_mat4 *pal=malloc((size_t)n*J*sizeof *pal); float *dq=malloc((size_t)n*J*8*4), *res=malloc((size_t)n*J*12*4);
  uint32_t *words=malloc(n*4);
  for(k=0;k<(size_t)n*J;++k){ gpuskin_trs t; float x=rnd(-1,1),y=rnd(-1,1),z=rnd(-1,1),w=rnd(-1,1),q=sqrtf(x*x+y*y+z*z+w*w);
    t.translation.x=rnd(-2,2);t.translation.y=rnd(-2,2);t.translation.z=rnd(-2,2);
    t.rotation.x=x/q;t.rotation.y=y/q;t.rotation.z=z/q;t.rotation.w=w/q;
    t.scale.x=rnd(.7f,1.4f);t.scale.y=rnd(.7f,1.4f);t.scale.z=rnd(.7f,1.4f); pal[k]=gpuskin_mat4_from_trs(&t);}
  long iters=(long)(2e6/(n*J)); if(iters<3) iters=3;
  double best=1e9,t[15];
  for(r=0;r<15;++r){double t0=now(); for(long it=0;it<iters;++it) for(i=0;i<n;++i)
      if(gpuskin_pack_dq_fast(pal+(size_t)i*J,J,GPUSKIN_SPLIT_GRAM_SCHMIDT,dq+(size_t)i*J*8,res+(size_t)i*J*12,&words[i])!=GPUSKIN_SUCCESS){puts("fail");return 1;}
    t[r]=(now()-t0)/iters/(n*J)*1e9; if(t[r]<best)best=t[r];}
  for(int a=0;a<15;++a)for(int b=a+1;b<15;++b)if(t[b]<t[a]){double x=t[a];t[a]=t[b];t[b]=x;}
  { unsigned long long h=1469598103934665603ULL; const unsigned char *pb=(const unsigned char*)dq; for(k=0;k<(size_t)n*J*32;++k){h^=pb[k];h*=1099511628211ULL;}
    pb=(const unsigned char*)res; for(k=0;k<(size_t)n*J*48;++k){h^=pb[k];h*=1099511628211ULL;} printf("hash %016llx ",h);}
  printf("n=%u min %.3f median %.3f ns/joint\n",n,best,t[7]);
  return 0;}
