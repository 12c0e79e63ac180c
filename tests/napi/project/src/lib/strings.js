export function capitalize(s) {
  return s.length ? s[0].toUpperCase() + s.slice(1) : s;
}
export function reverse(s) {
  return [...s].reverse().join('');
}
