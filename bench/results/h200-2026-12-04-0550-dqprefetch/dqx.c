#define GPUSKIN_IMPLEMENTATION
#include "gpuskin.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <immintrin.h>
#define J 64
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static float rnd(float a,float b){return a+(b-a)*(float)rand()/RAND_MAX;}
static int cmpd(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  uint32_t n=argc>1?atoi(argv[1]):10000, i, r; int reps=argc>2?atoi(argv[2]):11; int ahead=argc>3?atoi(argv[3]):1; int hint=argc>4?atoi(argv[4]):0;
  gpuskin_mat4*pal=malloc(sizeof(gpuskin_mat4)*n*J); float*dq=malloc(4ul*n*J*8), *res=malloc(4ul*n*J*12); uint32_t*w=malloc(4*n);
  for(i=0;i<n*J;++i){ gpuskin_trs t; memset(&t,0,sizeof t); float x=rnd(-1,1),y=rnd(-1,1),z=rnd(-1,1),q=rnd(-1,1),l=sqrtf(x*x+y*y+z*z+q*q);
    t.rotation.x=x/l;t.rotation.y=y/l;t.rotation.z=z/l;t.rotation.w=q/l;t.scale.x=rnd(.8f,1.25f);t.scale.y=rnd(.8f,1.25f);t.scale.z=rnd(.8f,1.25f);
    t.translation.x=rnd(-1,1);t.translation.y=rnd(-1,1);t.translation.z=rnd(-1,1); pal[i]=gpuskin_mat4_from_trs(&t);}
  double ta[64],tb[64];
  for(r=0;r<(uint32_t)reps+2;++r){
    for(int v=0;v<2;++v){ int b=(v^(r&1));
      memset(dq,0xff,4ul*n*J*8); memset(res,0xff,4ul*n*J*12);
      double t0=now();
      for(i=0;i<n;++i){
        if(b){ const char*p=(const char*)(pal+(size_t)(i+ahead)*J); if(i+ahead<n) for(int k=0;k<J*64;k+=64) { if(hint==0) _mm_prefetch(p+k,_MM_HINT_T0); else if(hint==1) _mm_prefetch(p+k,_MM_HINT_T1); else _mm_prefetch(p+k,_MM_HINT_T2);};}
        gpuskin_pack_dq_fast(pal+(size_t)i*J,J,GPUSKIN_SPLIT_GRAM_SCHMIDT,dq+(size_t)i*J*8,res+(size_t)i*J*12,&w[i]);
      }
      double t=(now()-t0)/((double)n*J)*1e9; if(r>=2){ if(b) tb[r-2]=t; else ta[r-2]=t; }
    }
  }
  qsort(ta,reps,8,cmpd);qsort(tb,reps,8,cmpd);
  printf("n=%u ahead=%d hint=%d plain %.2f ns/joint, prefetch next %.2f ns/joint (%.2fx)\n",n,ahead,hint,ta[reps/2],tb[reps/2],ta[reps/2]/tb[reps/2]);
  return 0;}
