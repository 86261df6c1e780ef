/* A tight-loop driver: gpuskin_build_palettes on N instances of a 64-joint skeleton shaped as bench_cpu's (its own random poses),
   or with a second argument "h" of a 52-joint humanoid (hips, spine x3, neck, head; two arms of clavicle, arm, forearm,
   hand and five three-joint fingers; two legs of four), each
   15 timings of max(3, 2e6 / (64 N)) calls; prints a hash of the LBS output (to compare
   forms bit for bit), the largest difference from the reference functions, and ns/joint.
   Build: gcc -O2 -I<folder with gpuskin.h> pal_chain.c -o NAME -lm; run: ./NAME N [h].
   (local-2026-12-04-2300-palx/pal_tight.c with the humanoid added.) */
#define _POSIX_C_SOURCE 200809L
#define GPUSKIN_NO_VULKAN
#define GPUSKIN_IMPLEMENTATION
#include <stdlib.h>
#include "gpuskin.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
static int J = 64; int g_skiploc, g_skipwalk;
#define JMAX 64
static unsigned s = 12345u;
static float rnd(float a, float b) { s = s * 1664525u + 1013904223u; return a + (b - a) * ((s >> 8) / 16777216.0f); }
static gpuskin_trs rtrs(int sc) {
  gpuskin_trs t; float x=rnd(-1,1),y=rnd(-1,1),z=rnd(-1,1),w=rnd(-1,1),n=sqrtf(x*x+y*y+z*z+w*w);
  t.translation.x=rnd(-1,1);t.translation.y=rnd(-1,1);t.translation.z=rnd(.1f,1);
  t.rotation.x=x/n;t.rotation.y=y/n;t.rotation.z=z/n;t.rotation.w=w/n;
  t.scale.x=sc?rnd(.7f,1.4f):1;t.scale.y=sc?rnd(.7f,1.4f):1;t.scale.z=sc?rnd(.7f,1.4f):1; return t; }

/* Critical-path list scheduling of the joints into GPUSKIN_CHAIN_SLOTS slots: each step takes up to four
   joints whose parent was made at an earlier step, the tallest remaining chains first; a joint whose
   parent its slot made one step before continues there, any other starts a chain. */
static uint32_t cp_slots(const gpuskin_skeleton *sk, uint32_t *out) {
  uint32_t n = sk->joint_count, h[1024], made[1024], slot[1024], k, steps = 0, left = n;
  for (k = 0; k < n; ++k) { h[k] = 1; made[k] = 0xFFFFFFFFu; }
  for (k = n; k-- > 0;) { uint32_t j = sk->order[k]; int32_t p = sk->parents[j]; if (p >= 0 && h[j] + 1 > h[p]) h[p] = h[j] + 1; }
  while (left) {
    uint32_t pick[4], np = 0, used[4] = {0,0,0,0}, s, *e = out + 4 * steps;
    for (s = 0; s < 4; ++s) e[s] = GPUSKIN_CHAIN_IDLE;
    for (;np < 4;) { uint32_t best = 0xFFFFFFFFu;
      for (k = 0; k < n; ++k) { int32_t p = sk->parents[k]; uint32_t q;
        if (made[k] != 0xFFFFFFFFu || (p >= 0 && made[p] >= steps)) continue;
        for (q = 0; q < np && pick[q] != k; ++q) {} if (q < np) continue;
        if (best == 0xFFFFFFFFu || h[k] > h[best]) best = k; }
      if (best == 0xFFFFFFFFu) break; pick[np++] = best; }
    for (k = 0; k < np; ++k) { int32_t p = sk->parents[pick[k]];
      if (p >= 0 && made[p] == steps - 1 && !used[slot[p]] ) { used[slot[p]] = 1; e[slot[p]] = pick[k]; slot[pick[k]] = slot[p]; pick[k] = 0xFFFFFFFFu; } }
    for (k = 0; k < np; ++k) if (pick[k] != 0xFFFFFFFFu) { for (s = 0; used[s]; ++s) {} used[s] = 1; e[s] = pick[k] | GPUSKIN_CHAIN_START; slot[pick[k]] = s; }
    for (k = 0; k < 4; ++k) if (e[k] != GPUSKIN_CHAIN_IDLE) { made[e[k] & ~GPUSKIN_CHAIN_START] = steps; --left; }
    ++steps; }
  return steps;
}
static uint32_t cp_table[4096];
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  g_skiploc=getenv("SKIPLOC")!=0; g_skipwalk=getenv("SKIPWALK")!=0;
  uint32_t n = argc>1?(uint32_t)atoi(argv[1]):1, j, i; int r;
  int32_t par[JMAX]; gpuskin_trs rest[JMAX]; gpuskin_mat4 ib[JMAX], g[JMAX]; gpuskin_skeleton_desc sd; gpuskin_skeleton sk, tmp;
  if(argc>2&&argv[2][0]=='h'){ /* humanoid: hips, spine x3, neck, head; 2 arms (clavicle, arm, forearm, hand, 5 fingers x 3); 2 legs x 4 */
    int n=0,k,f,sp; par[n++]=-1; par[n]=n-1;n++; par[n]=n-1;n++; par[n]=n-1;n++; sp=n-1; par[n]=sp;n++; par[n]=n-1;n++;
    for(k=0;k<2;++k){int h; par[n]=sp;n++; par[n]=n-1;n++; par[n]=n-1;n++; par[n]=n-1;n++; h=n-1; for(f=0;f<5;++f){par[n]=h;n++;par[n]=n-1;n++;par[n]=n-1;n++;}}
    for(k=0;k<2;++k){par[n]=0;n++;par[n]=n-1;n++;par[n]=n-1;n++;par[n]=n-1;n++;}
    J=n; for(j=0;j<(uint32_t)J;++j)rest[j]=rtrs(0);}
  else for(j=0;j<(uint32_t)J;++j){par[j]=j==0?-1:(j%8==0?(int32_t)(j-8):(int32_t)(j-1)); rest[j]=rtrs(0);}
  memset(&sd,0,sizeof sd); sd.joint_count=J; sd.parents=par; sd.rest_pose=rest;
  gpuskin_skeleton_init(&tmp,&sd); gpuskin_skeleton_globals(&tmp,NULL,g);
  for(j=0;j<J;++j) gpuskin_mat4_inverse_affine(&g[j],&ib[j]);
  gpuskin_skeleton_free(&tmp);
  sd.inverse_bind=ib; gpuskin_skeleton_init(&sk,&sd);
  if(getenv("CP")){ sk.chain_steps=cp_slots(&sk,cp_table); sk.chain_slots=cp_table; }
  if(getenv("SHOW")){ unsigned t,k2; fprintf(stderr,"steps %u\n",sk.chain_steps); for(t=0;t<sk.chain_steps;++t){for(k2=0;k2<4;++k2){unsigned e=sk.chain_slots[4*t+k2]; if(e==0xFFFFFFFFu)fprintf(stderr,"   . "); else fprintf(stderr,"%c%3u ", e&0x80000000u?'*':' ', e&0x7FFFFFFF);} fprintf(stderr,"\n");} }
  gpuskin_mat4 *models=malloc(n*sizeof *models); gpuskin_trs *poses=malloc((size_t)n*J*sizeof *poses);
  float *lbs=malloc((size_t)n*J*12*4), *ref=malloc((size_t)n*J*12*4);
  for(i=0;i<n;++i){gpuskin_trs t=rtrs(0);t.translation.x=rnd(-100,100);models[i]=gpuskin_mat4_from_trs(&t);for(j=0;j<J;++j)poses[(size_t)i*J+j]=rtrs(1);}
  /* reference */
  { gpuskin_mat4 p[JMAX]; for(i=0;i<n;++i){gpuskin_skeleton_globals(&sk,poses+(size_t)i*J,p);gpuskin_skeleton_palette(&sk,&models[i],p,p);gpuskin_pack_lbs(p,J,ref+(size_t)i*J*12);} }
 gpuskin_palette_batch_desc d; memset(&d,0,sizeof d); d.skeleton=&sk; d.instance_count=n; d.models=models; d.local_poses=poses; d.out_lbs=lbs;
  if(gpuskin_build_palettes(&d)!=GPUSKIN_SUCCESS){puts("fail");return 1;}
  double maxe=0; for(size_t k=0;k<(size_t)n*J*12;++k){double e=fabs(lbs[k]-ref[k]); if(e>maxe)maxe=e;}
  long iters = (long)(2e6/(n*J)); if(iters<3) iters=3;
  double best=1e9, t[15];
  for(r=0;r<15;++r){double t0=now(); for(long k=0;k<iters;++k) gpuskin_build_palettes(&d); t[r]=(now()-t0)/iters/(n*J)*1e9; if(t[r]<best)best=t[r];}
  for(int a=0;a<15;++a)for(int b=a+1;b<15;++b)if(t[b]<t[a]){double x=t[a];t[a]=t[b];t[b]=x;}
  { unsigned long long h=1469598103934665603ULL; const unsigned char *pb=(const unsigned char*)lbs; for(size_t k=0;k<(size_t)n*J*48;++k){h^=pb[k];h*=1099511628211ULL;} printf("hash %016llx ",h);}
  printf("n=%u maxerr=%.2g min %.3f median %.3f ns/joint\n",n,maxe,best,t[7]);
  return 0;}
