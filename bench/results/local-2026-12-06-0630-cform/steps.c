#define GPUSKIN_NO_VULKAN
#define GPUSKIN_IMPLEMENTATION
#include "gpuskin.h"
#include <stdio.h>
int main(void){ int32_t par[64]; int n=0,k,f,sp; gpuskin_skeleton_desc sd={0}; gpuskin_skeleton sk;
 for(int j=0;j<64;++j) par[j]=j==0?-1:(j%8==0?(j-8):(j-1));
 sd.joint_count=64; sd.parents=par; gpuskin_skeleton_init(&sk,&sd); printf("bench: steps %u chains %p\n", sk.chain_steps,(void*)sk.inverse_bind_chains);
 for(unsigned t=0;t<sk.chain_steps;++t){for(k=0;k<4;++k){unsigned e=sk.chain_slots[4*t+k]; if(e==0xFFFFFFFFu)printf("   . "); else printf("%c%3u ", e&0x80000000u?'*':' ', e&0x7FFFFFFF);} printf("\n");}
 gpuskin_skeleton_free(&sk);
 par[n++]=-1; par[n]=n-1;n++; par[n]=n-1;n++; par[n]=n-1;n++; sp=n-1; par[n]=sp;n++; par[n]=n-1;n++;
 for(k=0;k<2;++k){int h; par[n]=sp;n++; par[n]=n-1;n++; par[n]=n-1;n++; par[n]=n-1;n++; h=n-1; for(f=0;f<5;++f){par[n]=h;n++;par[n]=n-1;n++;par[n]=n-1;n++;}}
 for(k=0;k<2;++k){par[n]=0;n++;par[n]=n-1;n++;par[n]=n-1;n++;par[n]=n-1;n++;}
 sd.joint_count=n; gpuskin_skeleton_init(&sk,&sd); printf("humanoid %d: steps %u chains %p\n", n, sk.chain_steps,(void*)sk.inverse_bind_chains);
 for(unsigned t=0;t<sk.chain_steps;++t){for(k=0;k<4;++k){unsigned e=sk.chain_slots[4*t+k]; if(e==0xFFFFFFFFu)printf("   . "); else printf("%c%3u ", e&0x80000000u?'*':' ', e&0x7FFFFFFF);} printf("\n");}
}
