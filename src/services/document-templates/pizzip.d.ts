// pizzip ships its typings beside its ES module build, not beside the CommonJS entry point it resolves to.
declare module 'pizzip' {
  import PizZip from 'pizzip/es6/index.js';
  export default PizZip;
}
