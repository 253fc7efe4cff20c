// Imports a function Airlock does not provide (env.host_secret): such a module is refused
// before it runs, with a message naming the import.
__attribute__((import_module("env"), import_name("host_secret"))) extern int host_secret(void);

int main(void) { return host_secret(); }
