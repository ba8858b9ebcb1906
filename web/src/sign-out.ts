/** Sign-out revokes the key sign-in issued (POST /api/data/sign_out), then forgets it here. */
import { api } from "./api";
import { setSession } from "./session";
import { navigate } from "./router";
import { stopPlayer } from "./player-state";

export async function signOut(): Promise<void> {
  stopPlayer();
  // Even when the server cannot be reached the page forgets the key; a revoked key is refused anyway.
  await api.POST("/api/data/sign_out", {}).catch(() => undefined);
  setSession(null);
  navigate("/sign-in", true);
}
