#!/usr/bin/env python3
# The parameter counts of testbed/src/experiment.rs PROFILES, from layer shapes:
#   python3 testbed/scripts/count_params.py
# (torchvision layouts for the CNNs, HuggingFace bert-base-uncased and gpt2).
def conv(cin, cout, k, bias=False): return cin*cout*k*k + (cout if bias else 0)
def bn(c): return 2*c
def lin(i, o, bias=True): return i*o + (o if bias else 0)

def resnet(blocks):
    n = conv(3, 64, 7) + bn(64)
    cin = 64
    for i, nb in enumerate(blocks):
        w = 64 * 2**i
        for b in range(nb):
            n += conv(cin, w, 1) + bn(w) + conv(w, w, 3) + bn(w) + conv(w, 4*w, 1) + bn(4*w)
            if b == 0:
                n += conv(cin, 4*w, 1) + bn(4*w)
            cin = 4*w
    return n + lin(2048, 1000)

def vgg16():
    cfg = [64,64,'M',128,128,'M',256,256,256,'M',512,512,512,'M',512,512,512,'M']
    n, cin = 0, 3
    for c in cfg:
        if c == 'M': continue
        n += conv(cin, c, 3, True); cin = c
    return n + lin(512*7*7, 4096) + lin(4096, 4096) + lin(4096, 1000)

def alexnet():  # torchvision.models.alexnet
    n = conv(3,64,11,True)+conv(64,192,5,True)+conv(192,384,3,True)+conv(384,256,3,True)+conv(256,256,3,True)
    return n + lin(256*6*6, 4096) + lin(4096, 4096) + lin(4096, 1000)

def encoder_layer(d, ff):
    return 4*lin(d, d) + 2*d + lin(d, ff) + lin(ff, d) + 2*d

def bert_base():  # bert-base-uncased, BertModel with pooler
    d = 768
    emb = 30522*d + 512*d + 2*d + 2*d
    return emb + 12*encoder_layer(d, 3072) + lin(d, d)

def gpt2_small():  # lm_head tied to wte
    d = 768
    emb = 50257*d + 1024*d
    block = 2*d + lin(d, 3*d) + lin(d, d) + 2*d + lin(d, 4*d) + lin(4*d, d)
    return emb + 12*block + 2*d

for name, n in [("resnet50", resnet([3,4,6,3])), ("resnet101", resnet([3,4,23,3])),
                ("vgg16", vgg16()), ("alexnet", alexnet()), ("bert-base", bert_base()),
                ("gpt2-small", gpt2_small())]:
    print(f"{name:12} {n:>13,}")
