#define W 8
#define CAT(a, b) a ## b
#define STR(x) #x
#define V(f, ...) f(__VA_ARGS__)
#if defined(W) && (W << 1) == 16 ? 1 : 0
const bit<W> CAT(X, 1) = CAT(8w, 5);
#elif 1/0
#else
#error unreachable
#endif
#line 40 "renamed.p4"
const string S = STR(a "b" c);
