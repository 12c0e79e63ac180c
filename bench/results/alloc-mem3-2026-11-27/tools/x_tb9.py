f='crates/spindle-alloc/src/thread_map.rs'; s=open(f).read()
a='const SLOT_BITS: u32 = 10;'; assert a in s; s=s.replace(a,'const SLOT_BITS: u32 = 9;'); open(f,'w').write(s)
