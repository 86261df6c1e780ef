#define GPUSKIN_IMPLEMENTATION
#define GPUSKIN_NO_VULKAN
#include "gpuskin.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static float fr(float a,float b){return a+(b-a)*(rand()/(float)RAND_MAX);}
static gpuskin_mat4 mk(int kind){gpuskin_trs t;gpuskin_vec3 ax;t.translation.x=fr(-3,3);t.translation.y=fr(-3,3);t.translation.z=fr(-3,3);
 ax.x=fr(-1,1);ax.y=fr(-1,1);ax.z=fr(-1,1);t.rotation=gpuskin_quat_axis_angle(ax,fr(-3.1f,3.1f));
 t.scale.x=t.scale.y=t.scale.z=1; if(kind==1){t.scale.x=fr(0.4f,2.5f);t.scale.y=fr(0.4f,2.5f);t.scale.z=fr(0.4f,2.5f);}
 if(kind==2){t.scale.x=-fr(0.5f,2);t.scale.y=fr(0.5f,2);} if(kind==3){t.scale.x=fr(0.05f,20);t.scale.y=fr(0.05f,20);t.scale.z=fr(0.05f,20);}
 return gpuskin_mat4_from_trs(&t);}
static double now(void){struct timespec ts;clock_gettime(CLOCK_MONOTONIC,&ts);return ts.tv_sec+ts.tv_nsec*1e-9;}
int main(void){int kind;enum{N=64*1024};static gpuskin_mat4 m[N];static float dq[N*8],res[N*12],rdq[N*8],rres[N*12];
 for(kind=0;kind<4;++kind){int i,redo=0,nr;double worst=0;uint32_t w,w2;
  for(i=0;i<N;++i)m[i]=mk(kind);
  for(i=0;i<N;i+=8)redo+=__builtin_popcount(gpuskin__fast_polar8_sse(m+i,dq+i*8,res+i*12,&nr));
  gpuskin_pack_dq_fast(m,N,GPUSKIN_SPLIT_POLAR,dq,res,&w); gpuskin_pack_dq(m,N,GPUSKIN_SPLIT_POLAR,rdq,rres,&w2);
  for(i=0;i<N;++i){int k;double sc=1;for(k=0;k<16;++k)if(fabs(m[i].m[k])>sc)sc=fabs(m[i].m[k]);
   for(k=0;k<8;++k){double e=fabs(dq[i*8+k]-rdq[i*8+k])/sc;if(e>worst)worst=e;}
   for(k=0;k<12;++k){double e=fabs(res[i*12+k]-rres[i*12+k])/sc;if(e>worst)worst=e;}}
  printf("kind %d: redone %d of %d (%.2f%%), worst rel err %.3g, words %x %x\n",kind,redo,N,100.0*redo/N,worst,w,w2);
  {double t0,t1,t2,t3;int r;enum{J=64};
   t0=now();for(r=0;r<200;++r)for(i=0;i+J<=N;i+=J)gpuskin_pack_dq_fast(m+i,J,GPUSKIN_SPLIT_GRAM_SCHMIDT,dq+i*8,res+i*12,&w);
   t1=now();for(r=0;r<200;++r)for(i=0;i+J<=N;i+=J)gpuskin_pack_dq_fast(m+i,J,GPUSKIN_SPLIT_POLAR,dq+i*8,res+i*12,&w);
   t2=now();for(r=0;r<2;++r)for(i=0;i+J<=N;i+=J)gpuskin_pack_dq(m+i,J,GPUSKIN_SPLIT_POLAR,dq+i*8,res+i*12,&w);
   t3=now();printf("   ns/joint: GS fast %.2f, polar fast %.2f, polar reference %.2f\n",(t1-t0)/200/N*1e9,(t2-t1)/200/N*1e9,(t3-t2)/2/N*1e9);}
 }}
