export declare const ROOT: string;
export declare const DEFAULT_OUTDIR: string;
export declare const RUN_FLAGS: string[];
export declare function buildRunPath(outdir?: string): Promise<string>;
