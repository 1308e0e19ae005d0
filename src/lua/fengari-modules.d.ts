// fengari ships no types; the sandbox reaches into a few of its internal modules (see fengari.ts).
declare module 'fengari' {
  const fengari: any;
  export default fengari;
}
declare module 'fengari/src/*.js' {
  const mod: any;
  export default mod;
}
