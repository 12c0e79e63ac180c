f='crates/spindle-alloc/src/arena.rs'; s=open(f).read()
a="const SPAN_BYTES: usize = 16 << 10;"; assert a in s; s=s.replace(a,"const SPAN_BYTES: usize = 4 << 10;"); open(f,'w').write(s)
