// The device authorization flow (RFC 8628) is better-auth's deviceAuthorization plugin; this adds the one
// thing it lacks: when a user is deleted, their claimed or approved device codes go too. Otherwise the
// CLI polling for a code its user approved and then deleted their account got a 500 ("User not found")
// instead of an OAuth error; with the code gone it gets invalid_grant.
import type { BetterAuthPlugin } from "better-auth";

export function tillDevice() {
  return {
    id: "till-device",
    init(ctx) {
      return {
        options: {
          databaseHooks: {
            user: {
              delete: {
                after: async (user) => {
                  await ctx.adapter.deleteMany({ model: "deviceCode", where: [{ field: "userId", value: user.id }] });
                },
              },
            },
          },
        },
      };
    },
  } satisfies BetterAuthPlugin;
}
