// Minimal typing of the part of pngjs we use (the package ships none; @types/pngjs is not installed).
declare module "pngjs" {
  export class PNG {
    constructor(opts?: { width?: number; height?: number });
    width: number;
    height: number;
    data: Buffer;
    static sync: {
      read(buffer: Buffer): PNG;
      write(png: { width: number; height: number; data: Buffer }): Buffer;
    };
  }
}
