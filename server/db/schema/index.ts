export * from "./auth.js";
