f='crates/spindle-alloc/src/pool.rs'; s=open(f).read()
a='const FIRST_META_AREA: usize = 10 << 10;'; assert a in s; s=s.replace(a,'const FIRST_META_AREA: usize = 6 << 10;'); open(f,'w').write(s)
