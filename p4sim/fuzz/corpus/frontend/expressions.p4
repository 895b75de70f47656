#include <core.p4>
typedef bit<8> T;
struct s_t { T a; bit<4> b; }
T f(in T x, in bit<8> y) {
    s_t s = { a = x, b = 4w1 };
    s_t t = { x, 4w2 };
    bit<16> c = (bit<16>)x ++ y |+| 16w1 >> 2;
    return s.a == t.a && !(c[3:0] != 0) ? (T)c[7:0] : -x;
}
