export * from "@cva/imaging";
