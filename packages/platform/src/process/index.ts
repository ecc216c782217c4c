export { childEnv, DEFAULT_CHILD_PATH } from "./child-env.ts";
export { dropPrivilegesArgs, lookupUnprivilegedUser, SETPRIV, type UnprivilegedUser } from "./unprivileged-user.ts";
